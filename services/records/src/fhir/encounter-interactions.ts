// Encounter read and search: the visits of the caller's hospital, through the same guard (scopes for
// Encounter, then the role's kunjungan.list), tenant-scoped store and audit trail as the tRPC
// procedures. Search parameters are looked up in a Map (they come from the request).
import { randomUUID } from 'node:crypto';
import { STATUS, kunjunganStore, visitSearch } from '../kunjungan/index.ts';
import type { DayBound, Status, VisitQuery } from '../kunjungan/index.ts';
import { settingsStore } from '../poli/index.ts';
import { guard, preferOf, via } from './context.ts';
import type { Interaction } from './context.ts';
import { toEncounter } from './encounter.ts';
import { encounterIncludes, parseIncludes } from './includes.ts';
import { badRequest, notFound, notSupported, operationOutcome } from './outcome.ts';
import { DEFAULT_COUNT, MAX_COUNT } from './params.ts';
import { sendResource, versionHeaders } from './wire.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_OPS = new Map<string, DayBound['op']>([
  ['eq', '='],
  ['ne', '<>'],
  ['lt', '<'],
  ['le', '<='],
  ['gt', '>'],
  ['ge', '>='],
]);

/** The search parameters of the CapabilityStatement. */
export const ENCOUNTER_PARAMS = [
  { name: '_id', type: 'token', documentation: 'The visit id; comma-separated ids match any of them.' },
  { name: 'patient', type: 'reference', documentation: 'Patient/<id> or the id: the visits of that patient.' },
  { name: 'subject', type: 'reference', documentation: 'As patient (Patient/<id>).' },
  { name: 'status', type: 'token', documentation: `${STATUS.join(', ')}; comma-separated values match any of them.` },
  {
    name: 'date',
    type: 'date',
    documentation: 'The day of the visit, YYYY-MM-DD, with the prefixes eq (default), ne, lt, le, gt, ge.',
  },
] as const;

const CONTROL = new Set(['_count', '_format', '_pretty', '_include', '_revinclude']);
const split = (raw: string) => raw.split(',').filter((v) => v !== '');

async function organizationOf(ix: Interaction): Promise<string> {
  return (await settingsStore(ix.scope).getSettings()).organizationId;
}

export async function readEncounter(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'kunjungan.list');
  const id = ix.id ?? '';
  if (!UUID.test(id)) throw notFound('Encounter');
  const k = await kunjunganStore(ix.scope).get(id.toLowerCase(), via('read'));
  // A patient/ scope reaches its launch patient's visits only: another's is as missing as a foreign one.
  if (patientId !== undefined && patientId.toLowerCase() !== k.pasienId) throw notFound('Encounter');
  const body = toEncounter(k, ix.scope.db.tenantId, await organizationOf(ix));
  sendResource(ix.res, 200, body, ix.pretty, versionHeaders(k.version, k.updatedAt));
}

type Parsed = Omit<VisitQuery, 'audit' | 'limit'> & { count: number; used: [string, string][]; ignored: string[] };

function parseParam(out: Parsed, name: string, raw: string): void {
  const values = split(raw);
  if (name === '_id') {
    if (!values.every((v) => UUID.test(v))) throw badRequest('_id must be visit ids', ['_id']);
    out.ids.push(values.map((v) => v.toLowerCase()));
  } else if (name === 'patient' || name === 'subject') {
    const ids = values.map((v) => v.replace(/^Patient\//, ''));
    if (!ids.every((v) => UUID.test(v))) throw badRequest(`${name} must be Patient/<id>`, [name]);
    out.pasienIds.push(ids.map((v) => v.toLowerCase()));
  } else if (name === 'status') {
    if (!values.every((v) => (STATUS as readonly string[]).includes(v)))
      throw badRequest(`status must be one of ${STATUS.join(', ')}`, ['status']);
    out.statuses.push(values as Status[]);
  } else {
    out.days.push(
      values.map((v) => {
        const m = /^(eq|ne|lt|le|gt|ge)?(\d{4}-\d{2}-\d{2})$/.exec(v);
        const op = DATE_OPS.get(m?.[1] ?? 'eq');
        if (!m || !op || Number.isNaN(Date.parse(`${m[2]!}T00:00:00Z`)))
          throw badRequest('date must be YYYY-MM-DD with an optional prefix eq, ne, lt, le, gt or ge', ['date']);
        return { op, date: m[2]! };
      }),
    );
  }
}

function parseEncounterSearch(query: URLSearchParams, strict: boolean): Parsed {
  const out: Parsed = { pasienIds: [], statuses: [], days: [], ids: [], count: DEFAULT_COUNT, used: [], ignored: [] };
  const known = new Map<string, true>(ENCOUNTER_PARAMS.map((p) => [p.name, true]));
  for (const [key, raw] of query) {
    if (CONTROL.has(key)) continue;
    if (!known.has(key)) {
      if (strict || key.includes(':')) throw notSupported(`search parameter ${key} is not supported for Encounter`, 400, [key]);
      out.ignored.push(key);
      continue;
    }
    parseParam(out, key, raw);
    out.used.push([key, raw]);
  }
  const count = query.get('_count');
  if (count !== null) {
    if (!/^\d{1,3}$/.test(count) || Number(count) < 1 || Number(count) > MAX_COUNT)
      throw badRequest(`_count must be a whole number from 1 to ${MAX_COUNT}`, ['_count']);
    out.count = Number(count);
  }
  return out;
}

export async function searchEncounter(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'kunjungan.list');
  const parsed = parseEncounterSearch(ix.query, preferOf(ix.req).strict);
  const includes = parseIncludes(ix.query);
  if (patientId !== undefined) parsed.pasienIds.push([patientId.toLowerCase()]);
  const { count, used, ignored, ...query } = parsed;
  const filters = used.map(([k]) => k);
  const result = await visitSearch(ix.scope).search({ ...query, limit: count, audit: { ...via('search'), filters } });
  const organizationId = await organizationOf(ix);
  const tenantId = ix.scope.db.tenantId;
  const asked = [...used, ...['_include', '_revinclude'].flatMap((k) => ix.query.getAll(k).map((v): [string, string] => [k, v]))];
  const params = [...asked.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), `_count=${count}`];
  const entry: Record<string, unknown>[] = result.items.map((k) => ({
    fullUrl: `${ix.base}/Encounter/${k.id}`,
    resource: toEncounter(k, tenantId, organizationId),
    search: { mode: 'match' },
  }));
  const included = await encounterIncludes(ix, includes, result.items);
  entry.push(...included.entries);
  const notes = [
    ...included.notes,
    ...(ignored.length ? [`ignored search parameters: ${ignored.join(', ')}`] : []),
    // Encounter searches are not paged: a patient's or a day's visits fit one page.
    ...(result.more ? [`more than ${count} visits match: narrow the search (patient, date, status)`] : []),
  ];
  if (notes.length) {
    const issues = notes.map((diagnostics) => ({ severity: 'warning' as const, code: 'informational' as const, diagnostics }));
    entry.push({ fullUrl: `urn:uuid:${randomUUID()}`, resource: operationOutcome(issues), search: { mode: 'outcome' } });
  }
  const link = [{ relation: 'self', url: `${ix.base}/Encounter?${params.join('&')}` }];
  sendResource(ix.res, 200, { resourceType: 'Bundle', id: randomUUID(), type: 'searchset', link, entry }, ix.pretty);
}
