// FHIR search parameters for Patient, parsed into the record search's conditions (pasien/search.ts).
// Repeated parameters AND together, comma-separated values OR together. Parameters this server does
// not know are ignored and reported (FHIR's lenient default), or refused with
// `Prefer: handling=strict`; unknown modifiers and malformed values are always refused.
import { createHash } from 'node:crypto';
import type { Condition, Range, SearchQuery } from '../pasien/index.ts';
import { badRequest, notSupported } from './outcome.ts';
import { BPJS_SYSTEM, NIK_SYSTEM, mrSystem } from './mapping.ts';

export const DEFAULT_COUNT = 20;
export const MAX_COUNT = 100;

/** The search parameters of the CapabilityStatement, with their type and what they match. */
export const SEARCH_PARAMS = [
  { name: '_id', type: 'token', documentation: 'The patient id; comma-separated ids match any of them.' },
  {
    name: '_lastUpdated',
    type: 'date',
    documentation: 'When the record last changed; prefixes eq, ne, lt, le, gt, ge, sa, eb, ap at any precision from year to milliseconds.',
  },
  {
    name: 'identifier',
    type: 'token',
    documentation: `system|value for the NIK (${NIK_SYSTEM}), the hospital's medical record number (https://simrs.id/fhir/sid/mr/<hospital>) or the BPJS number (${BPJS_SYSTEM}); a value without system matches any of them; system| matches patients having that identifier.`,
  },
  {
    name: 'name',
    type: 'string',
    documentation:
      'A word of the name starting with the value (case-insensitive), or a phrase from a word on; name:exact is the whole name as written.',
  },
  {
    name: 'family',
    type: 'string',
    documentation:
      'The last word of the name starts with the value. Indonesian names rarely have a family name: the record keeps the name as written (name.text).',
  },
  { name: 'given', type: 'string', documentation: 'A word of the name other than the last starts with the value.' },
  {
    name: 'birthdate',
    type: 'date',
    documentation: 'Birth date; prefixes eq, ne, lt, le, gt, ge, sa, eb, ap; YYYY, YYYY-MM or YYYY-MM-DD.',
  },
  { name: 'gender', type: 'token', documentation: 'male or female (the record holds no other).' },
] as const;

/**
 * Sort orders: `_sort` values and the record search's order. A Map: `_sort` comes from the request,
 * and a plain object would answer `constructor` or `toString` with what every object inherits.
 */
export const SORTS: ReadonlyMap<string, SearchQuery['sort']> = new Map([
  ['_lastUpdated', 'updated'],
  ['-_lastUpdated', '-updated'],
  ['birthdate', 'lahir'],
  ['-birthdate', '-lahir'],
]);

/** Result parameters and this server's own (`_cursor`), besides the search parameters. */
const CONTROL = new Set(['_count', '_sort', '_format', '_pretty', '_cursor']);

export interface ParsedSearch {
  conditions: Condition[];
  sort: SearchQuery['sort'];
  count: number;
  cursor?: string;
  /** The parameters applied, as sent (name with modifier, raw value): the self link and the cursor's binding. */
  used: [string, string][];
  /** Parameters ignored (lenient handling). */
  ignored: string[];
  /** Binds a cursor to the search it pages through. */
  digest: string;
}

/** Splits on commas not escaped with a backslash, and unescapes. */
function splitValues(raw: string): string[] {
  return raw
    .split(/(?<!\\),/)
    .map((v) => v.replace(/\\([,|$\\])/g, '$1'))
    .filter((v) => v !== '');
}

const PREFIX = /^(eq|ne|lt|gt|le|ge|sa|eb|ap)/;

function rangeFor(prefix: string, lo: string, hi: string, hiInclusive: boolean, widen: (d: number) => [string, string]): Range {
  switch (prefix) {
    case 'ne':
      return { from: lo, to: hi, toInclusive: hiInclusive, not: true };
    case 'lt':
    case 'eb':
      return { to: lo };
    case 'le':
      return { to: hi, toInclusive: hiInclusive };
    case 'gt':
    case 'sa':
      return hiInclusive ? { from: hi, fromInclusive: false } : { from: hi };
    case 'ge':
      return { from: lo };
    case 'ap': {
      const [wlo, whi] = widen(0.1);
      return { from: wlo, to: whi, toInclusive: hiInclusive };
    }
    default:
      return { from: lo, to: hi, toInclusive: hiInclusive };
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const isoDay = (d: Date) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

/** birthdate: a day range, inclusive at both ends. */
function dateRange(param: string, value: string): Range {
  const prefix = PREFIX.exec(value)?.[1] ?? 'eq';
  const rest = PREFIX.test(value) ? value.slice(2) : value;
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?$/.exec(rest);
  if (!m) throw badRequest(`${param}: ${value} is not a date (YYYY, YYYY-MM or YYYY-MM-DD, with an optional prefix such as ge)`, [param]);
  const [y, mo, d] = [Number(m[1]), m[2] ? Number(m[2]) : undefined, m[3] ? Number(m[3]) : undefined];
  const lo = new Date(Date.UTC(y, (mo ?? 1) - 1, d ?? 1));
  const hi = d !== undefined ? lo : mo !== undefined ? new Date(Date.UTC(y, mo, 0)) : new Date(Date.UTC(y, 11, 31));
  if (
    Number.isNaN(lo.getTime()) ||
    (mo !== undefined && (mo < 1 || mo > 12)) ||
    (d !== undefined && isoDay(lo) !== `${m[1]}-${m[2]}-${m[3]}`)
  ) {
    throw badRequest(`${param}: ${value} is not a calendar date`, [param]);
  }
  return rangeFor(prefix, isoDay(lo), isoDay(hi), true, (f) => {
    const delta = Math.max(86_400_000, Math.abs(Date.now() - lo.getTime()) * f);
    return [isoDay(new Date(lo.getTime() - delta)), isoDay(new Date(hi.getTime() + delta))];
  });
}

/** Minutes east of UTC of a zone designator (Z, +07:00, -03:30); 0 when absent. */
function offsetMinutes(zone: string | undefined): number {
  if (!zone || zone === 'Z') return 0;
  return (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
}

/** Where the instant `lo` ends at the precision it was written in: the next millisecond, second, minute, day, month or year. */
function endOfPrecision(
  lo: number,
  hasFraction: boolean,
  [y, mo, d, mi, s]: [number, number | undefined, number | undefined, number | undefined, number | undefined],
): number {
  if (hasFraction) return lo + 1;
  if (s !== undefined) return lo + 1000;
  if (mi !== undefined) return lo + 60_000;
  if (d !== undefined) return lo + 86_400_000;
  if (mo !== undefined) return Date.UTC(y, mo, 1);
  return Date.UTC(y + 1, 0, 1);
}

/** _lastUpdated: an instant range [lo, hi) at the precision given. */
export function instantRange(param: string, value: string): Range {
  const prefix = PREFIX.exec(value)?.[1] ?? 'eq';
  const rest = PREFIX.test(value) ? value.slice(2) : value;
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/.exec(rest);
  if (!m) throw badRequest(`${param}: ${value} is not a date or instant`, [param]);
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => (m[i] === undefined ? undefined : Number(m[i])));
  const tz = offsetMinutes(m[8]);
  const ms = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  const lo = Date.UTC(y!, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0, ms) - tz * 60_000;
  const next = endOfPrecision(lo, m[7] !== undefined, [y!, mo, d, mi, s]);
  if (Number.isNaN(lo) || (mo !== undefined && (mo < 1 || mo > 12)))
    throw badRequest(`${param}: ${value} is not a valid date or instant`, [param]);
  const iso = (t: number) => new Date(t).toISOString();
  return rangeFor(prefix, iso(lo), iso(next), false, (f) => {
    const delta = Math.max(1000, Math.abs(Date.now() - lo) * f);
    return [iso(lo - delta), iso(next + delta)];
  });
}

function identifierCondition(value: string, tenantId: string): Condition {
  const bar = value.search(/(?<!\\)\|/);
  if (bar < 0) return { field: 'anyIdentifier', anyOf: [value] };
  const system = value.slice(0, bar);
  const code = value.slice(bar + 1);
  const field = system === NIK_SYSTEM ? 'nik' : system === mrSystem(tenantId) ? 'noRm' : system === BPJS_SYSTEM ? 'noBpjs' : undefined;
  if (!field) return { field: 'none' };
  if (code === '') return field === 'noBpjs' ? { field: 'hasNoBpjs' } : { field: 'all' };
  return { field, anyOf: [code] };
}

/** One `or` of conditions, or the condition itself when alone. */
const anyOf = (alternatives: Condition[]): Condition =>
  alternatives.length === 1 ? alternatives[0]! : { field: 'or', anyOf: alternatives };

/** A search parameter's values as one condition (the parameter's name known, its values split). */
type ConditionOf = (param: { key: string; modifier: string | undefined; values: string[]; tenantId: string }) => Condition;

const nameCondition =
  (part: 'any' | 'family' | 'given'): ConditionOf =>
  ({ modifier, values }) => ({ field: 'name', part: modifier === 'exact' ? 'exact' : part, anyOf: values });

function genderCondition({ values }: { values: string[] }): Condition {
  const codes = values.map((v) => (v === 'male' ? 'L' : v === 'female' ? 'P' : undefined)).filter((v): v is 'L' | 'P' => v !== undefined);
  return codes.length ? { field: 'jenisKelamin', anyOf: codes } : { field: 'none' };
}

const CONDITIONS = new Map<string, ConditionOf>([
  ['_id', ({ values }) => ({ field: 'id', anyOf: values })],
  ['identifier', ({ values, tenantId }) => anyOf(values.map((v) => identifierCondition(v, tenantId)))],
  ['name', nameCondition('any')],
  ['family', nameCondition('family')],
  ['given', nameCondition('given')],
  ['gender', genderCondition],
  ['birthdate', ({ key, values }) => ({ field: 'tanggalLahir', anyOf: values.map((v) => dateRange(key, v)) })],
  ['_lastUpdated', ({ key, values }) => ({ field: 'updatedAt', anyOf: values.map((v) => instantRange(key, v)) })],
]);

export function parseSearch(query: URLSearchParams, opts: { tenantId: string; strict: boolean }): ParsedSearch {
  const conditions: Condition[] = [];
  const used: [string, string][] = [];
  const ignored: string[] = [];
  let sort: SearchQuery['sort'] = 'default';
  let count = DEFAULT_COUNT;
  let cursor: string | undefined;

  for (const [key, raw] of query) {
    const [name, modifier, ...more] = key.split(':');
    if (CONTROL.has(key)) {
      if (key === '_count') {
        if (!/^\d{1,6}$/.test(raw)) throw badRequest('_count must be a whole number', ['_count']);
        // 0 asks for the total alone (search.ts): never more entries than asked for.
        count = Math.min(MAX_COUNT, Number(raw));
      } else if (key === '_sort') {
        const chosen = SORTS.get(raw);
        if (!chosen) throw notSupported(`_sort ${raw} is not supported: use one of ${[...SORTS.keys()].join(', ')}`, 400, ['_sort']);
        sort = chosen;
        used.push([key, raw]);
      } else if (key === '_cursor') cursor = raw;
      continue;
    }
    const known = SEARCH_PARAMS.some((p) => p.name === name);
    if (!known) {
      if (opts.strict) throw notSupported(`search parameter ${key} is not supported (Prefer: handling=strict)`, 400, [key]);
      ignored.push(key);
      continue;
    }
    if (more.length || (modifier !== undefined && !(name === 'name' && modifier === 'exact'))) {
      throw notSupported(`modifier :${[modifier, ...more].join(':')} is not supported on ${name}`, 400, [key]);
    }
    const values = splitValues(raw);
    if (values.length === 0) throw badRequest(`${key} needs a value`, [key]);
    used.push([key, raw]);
    const condition = CONDITIONS.get(name!)?.({ key, modifier, values, tenantId: opts.tenantId });
    if (condition) conditions.push(condition);
  }
  const digest = createHash('sha256')
    .update(JSON.stringify([used, sort]))
    .digest('base64url')
    .slice(0, 16);
  return { conditions, sort, count, ...(cursor !== undefined ? { cursor } : {}), used, ignored, digest };
}
