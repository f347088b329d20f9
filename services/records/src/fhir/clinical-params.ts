// Search parameters of Observation, Condition and AllergyIntolerance, parsed into the clinical-entry
// search (klinis/search.ts). Repeated parameters AND together, comma-separated values OR together;
// unknown parameters are ignored and named (or refused with Prefer: handling=strict); malformed values
// and modifiers are refused. Parameters are looked up in Maps: their names come from the request.
import { createHash } from 'node:crypto';
import { NO_KNOWN_ALLERGY } from '../klinis/index.ts';
import type { EntryQuery, EntrySort, StatusMatch, TimeRange } from '../klinis/index.ts';
import { ICD10, KATEGORI, LOINC } from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { badRequest, notSupported } from './outcome.ts';
import { DEFAULT_COUNT, instantRange, MAX_COUNT } from './params.ts';

export interface ParamDoc {
  name: string;
  type: 'token' | 'reference' | 'date';
  documentation: string;
  definition: string;
}

const SP = 'http://hl7.org/fhir/SearchParameter/';
const COMMON: ParamDoc[] = [
  { name: '_id', type: 'token', documentation: 'The entry id; comma-separated ids match any of them.', definition: `${SP}Resource-id` },
  {
    name: 'patient',
    type: 'reference',
    documentation: 'Patient/<id> or the id (required, or encounter).',
    definition: `${SP}clinical-patient`,
  },
  {
    name: 'encounter',
    type: 'reference',
    documentation: 'Encounter/<id> or the id: the entries of that visit.',
    definition: `${SP}clinical-encounter`,
  },
  {
    name: '_lastUpdated',
    type: 'date',
    documentation: 'When the entry last changed; prefixes eq, ne, lt, le, gt, ge, sa, eb, ap.',
    definition: `${SP}Resource-lastUpdated`,
  },
];
const subject = (type: string): ParamDoc => ({
  name: 'subject',
  type: 'reference',
  documentation: 'As patient (Patient/<id>).',
  definition: `${SP}${type}-subject`,
});
const date = (what: string, definition: string): ParamDoc => ({
  name: 'date',
  type: 'date',
  documentation: `${what}; prefixes eq, ne, lt, le, gt, ge, sa, eb, ap at any precision (a date without a time is the hospital's day, Asia/Jakarta; a time without a zone is UTC).`,
  definition,
});

/** Each type's search parameters, for the CapabilityStatement and the parser. */
export const CLINICAL_PARAMS: Record<ServedKind, ParamDoc[]> = {
  vital: [
    ...COMMON,
    subject('Observation'),
    date('effectiveDateTime', `${SP}clinical-date`),
    {
      name: 'code',
      type: 'token',
      documentation: `LOINC: ${LOINC}|<code> or the code (a blood pressure is found by its panel, 85354-9, not its components).`,
      definition: `${SP}clinical-code`,
    },
    { name: 'category', type: 'token', documentation: 'vital-signs (observation-category).', definition: `${SP}Observation-category` },
    {
      name: 'status',
      type: 'token',
      documentation: 'final, amended (also corrected), entered-in-error; without it, entries entered in error are left out.',
      definition: `${SP}Observation-status`,
    },
  ],
  diagnosis: [
    ...COMMON,
    subject('Condition'),
    date('recordedDate (SIMRS: date is recorded-date)', `${SP}Condition-recorded-date`),
    { ...date('recordedDate', `${SP}Condition-recorded-date`), name: 'recorded-date' },
    { name: 'code', type: 'token', documentation: `ICD-10: ${ICD10}|<code> or the code.`, definition: `${SP}clinical-code` },
    { name: 'category', type: 'token', documentation: 'encounter-diagnosis (condition-category).', definition: `${SP}Condition-category` },
    {
      name: 'clinical-status',
      type: 'token',
      documentation: 'active, recurrence, relapse, inactive, remission, resolved.',
      definition: `${SP}Condition-clinical-status`,
    },
    {
      name: 'verification-status',
      type: 'token',
      documentation: 'confirmed, entered-in-error; without it, entries entered in error are left out.',
      definition: `${SP}Condition-verification-status`,
    },
  ],
  alergi: [
    ...COMMON,
    date('recordedDate', `${SP}clinical-date`),
    {
      name: 'code',
      type: 'token',
      documentation: `${NO_KNOWN_ALLERGY.system}|${NO_KNOWN_ALLERGY.code} (no known allergy).`,
      definition: `${SP}clinical-code`,
    },
    {
      name: 'category',
      type: 'token',
      documentation: 'food, medication, environment, biologic.',
      definition: `${SP}AllergyIntolerance-category`,
    },
    {
      name: 'clinical-status',
      type: 'token',
      documentation: 'active, inactive, resolved.',
      definition: `${SP}AllergyIntolerance-clinical-status`,
    },
    {
      name: 'verification-status',
      type: 'token',
      documentation: 'unconfirmed, confirmed, refuted, entered-in-error; without it, entries entered in error are left out.',
      definition: `${SP}AllergyIntolerance-verification-status`,
    },
  ],
};

export const CLINICAL_SORTS = new Map<string, EntrySort>([
  ['date', 'waktu'],
  ['-date', '-waktu'],
  ['_lastUpdated', 'updated'],
  ['-_lastUpdated', '-updated'],
]);

const CONTROL = new Set(['_count', '_sort', '_cursor', '_format', '_pretty']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Matches no entry: a valid value this server holds nothing for. */
const NOTHING = '\u0000none';
const CODE_SYSTEM: Record<ServedKind, string> = { vital: LOINC, diagnosis: ICD10, alergi: NO_KNOWN_ALLERGY.system };

export type ClinicalQuery = Omit<EntryQuery, 'limit' | 'audit' | 'after' | 'kind'>;

export interface ParsedClinical {
  query: ClinicalQuery;
  count: number;
  cursor?: string;
  used: [string, string][];
  ignored: string[];
  digest: string;
}

const split = (raw: string) =>
  raw
    .split(/(?<!\\),/)
    .map((v) => v.replace(/\\([,|$\\])/g, '$1'))
    .filter((v) => v !== '');

function ids(name: string, values: string[], type: string): string[] {
  const out = values.map((v) => v.replace(new RegExp(`^(?:.*/)?${type}/`), ''));
  if (!out.every((v) => UUID.test(v))) throw badRequest(`${name} must be ${type}/<id>`, [name]);
  return out.map((v) => v.toLowerCase());
}

/** `system|code` or `code`: the code when the system is the kind's (or absent), NOTHING otherwise. */
function token(value: string, system: string | undefined): string {
  const bar = value.lastIndexOf('|');
  if (bar < 0) return value;
  const s = value.slice(0, bar);
  return s === '' || s === system ? value.slice(bar + 1) : NOTHING;
}

/** Jakarta is UTC+7 all year (no daylight saving). */
const JAKARTA_MS = 7 * 3_600_000;

/**
 * A date without a time (`2026-05-01`, `2026-05`, `2026`) is the hospital's day, month or year, as
 * visits are dated (Asia/Jakarta), not UTC's: a measurement at 06:00 WIB belongs to that day.
 */
function hospitalDay(range: TimeRange, value: string): TimeRange {
  if (value.includes('T')) return range;
  const shift = (iso: string | undefined) => (iso === undefined ? undefined : new Date(Date.parse(iso) - JAKARTA_MS).toISOString());
  const from = shift(range.from);
  const to = shift(range.to);
  return { ...range, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

const OBSERVATION_STATUS = new Map<string, StatusMatch | null>([
  ['final', { enteredInError: false, amended: false }],
  ['amended', { enteredInError: false, amended: true }],
  ['corrected', { enteredInError: false, amended: true }],
  ['entered-in-error', { enteredInError: true }],
  ['registered', null],
  ['preliminary', null],
  ['cancelled', null],
  ['unknown', null],
]);

function statusMatches(kind: ServedKind, name: string, values: string[]): StatusMatch[] {
  return values.map((v): StatusMatch => {
    if (name === 'status') {
      const m = OBSERVATION_STATUS.get(v);
      if (m === undefined) throw badRequest(`status must be one of ${[...OBSERVATION_STATUS.keys()].join(', ')}`, ['status']);
      return m ?? { isi: { field: 'clinicalStatus', value: NOTHING } };
    }
    if (name === 'clinical-status') return { enteredInError: false, isi: { field: 'clinicalStatus', value: v } };
    if (v === 'entered-in-error') return { enteredInError: true };
    if (kind === 'diagnosis')
      return v === 'confirmed' ? { enteredInError: false } : { isi: { field: 'verificationStatus', value: NOTHING } };
    return { enteredInError: false, isi: { field: 'verificationStatus', value: v } };
  });
}

function applyParam(kind: ServedKind, q: ClinicalQuery, name: string, values: string[]): void {
  if (name === 'patient' || name === 'subject') q.pasienIds.push(ids(name, values, 'Patient'));
  else if (name === 'encounter') q.kunjunganIds.push(ids(name, values, 'Encounter'));
  else if (name === '_id') {
    if (!values.every((v) => UUID.test(v))) throw badRequest('_id must be entry ids', ['_id']);
    q.ids.push(values.map((v) => v.toLowerCase()));
  } else if (name === 'date' || name === 'recorded-date') q.waktu.push(values.map((v) => hospitalDay(instantRange(name, v), v)));
  else if (name === '_lastUpdated') q.updated.push(values.map((v) => instantRange(name, v)));
  else if (name === 'code') q.kode.push(values.map((v) => token(v, CODE_SYSTEM[kind])));
  else if (name === 'category') q.kategori.push(values.map((v) => token(v, KATEGORI[kind].system)));
  else {
    const matches = statusMatches(kind, name, values);
    if (matches.some((m) => m.enteredInError === true)) q.includeEnteredInError = true;
    q.status.push(matches);
  }
}

function controlParam(out: ParsedClinical, key: string, raw: string, sort: { value: EntrySort }): void {
  if (key === '_count') {
    if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_COUNT)
      throw badRequest(`_count must be a whole number from 1 to ${MAX_COUNT}`, ['_count']);
    out.count = Number(raw);
  } else if (key === '_sort') {
    const chosen = CLINICAL_SORTS.get(raw);
    if (!chosen) throw notSupported(`_sort ${raw} is not supported: use one of ${[...CLINICAL_SORTS.keys()].join(', ')}`, 400, ['_sort']);
    sort.value = chosen;
    out.used.push([key, raw]);
  } else if (key === '_cursor') out.cursor = raw;
}

export function parseClinicalSearch(kind: ServedKind, query: URLSearchParams, strict: boolean): ParsedClinical {
  const q: ClinicalQuery = {
    pasienIds: [],
    kunjunganIds: [],
    ids: [],
    kode: [],
    kategori: [],
    waktu: [],
    updated: [],
    status: [],
    includeEnteredInError: false,
    sort: '-waktu',
  };
  const out: ParsedClinical = { query: q, count: DEFAULT_COUNT, used: [], ignored: [], digest: '' };
  const sort = { value: '-waktu' as EntrySort };
  const known = new Set(CLINICAL_PARAMS[kind].map((p) => p.name));
  for (const [key, raw] of query) {
    if (CONTROL.has(key)) {
      controlParam(out, key, raw, sort);
      continue;
    }
    if (!known.has(key)) {
      if (strict || (key.includes(':') && known.has(key.split(':')[0]!)))
        throw notSupported(`search parameter ${key} is not supported here`, 400, [key]);
      out.ignored.push(key);
      continue;
    }
    const values = split(raw);
    if (values.length === 0) throw badRequest(`${key} needs a value`, [key]);
    applyParam(kind, q, key, values);
    out.used.push([key, raw]);
  }
  q.sort = sort.value;
  out.digest = createHash('sha256')
    .update(JSON.stringify([kind, out.used, q.sort]))
    .digest('base64url')
    .slice(0, 16);
  return out;
}
