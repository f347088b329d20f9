// What an Encounter search brings along (`_include=Encounter:subject`, `_revinclude=Observation:encounter`,
// `Condition:encounter`, `AllergyIntolerance:encounter`) and `Patient/[id]/$everything`. Everything
// included passes its own guard: the patients their permission, the clinical entries their scopes,
// role and need-to-know per patient (a patient the caller may not reach is left out, and a warning
// says so), as Medplum and HAPI apply their access policies to included resources too.
import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { klinisSearch } from '../klinis/index.ts';
import type { EntryQuery } from '../klinis/index.ts';
import { pasienSearch } from '../pasien/index.ts';
import { FHIR_TYPE, toResource } from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { KIND_OF_TYPE, kategoriOf, mappingContext } from './clinical-read.ts';
import { clinicalGuard, guard, needToKnowFor, via } from './context.ts';
import type { Interaction } from './context.ts';
import { toPatient } from './mapping.ts';
import { FhirError, notSupported, operationOutcome } from './outcome.ts';

/** At most this many entries of one type come along with one answer; a warning says when there were more. */
export const INCLUDED_MAX = 500;

export type Entry = Record<string, unknown>;

export interface Includes {
  subject: boolean;
  revinclude: ServedKind[];
}

const INCLUDES = new Set(['Encounter:subject', 'Encounter:patient', 'Encounter:subject:Patient', 'Encounter:patient:Patient']);

/** `_include` and `_revinclude` values of an Encounter search; anything else is a 400 naming it. */
export function parseIncludes(query: URLSearchParams): Includes {
  const out: Includes = { subject: false, revinclude: [] };
  for (const v of query.getAll('_include')) {
    if (!INCLUDES.has(v)) throw notSupported(`_include ${v} is not supported: Encounter:subject is`, 400, ['_include']);
    out.subject = true;
  }
  for (const v of query.getAll('_revinclude')) {
    const [type, param] = v.split(':');
    const kind = KIND_OF_TYPE.get(type ?? '');
    if (!kind || param !== 'encounter')
      throw notSupported(
        `_revinclude ${v} is not supported: Observation:encounter, Condition:encounter and AllergyIntolerance:encounter are`,
        400,
        ['_revinclude'],
      );
    if (!out.revinclude.includes(kind)) out.revinclude.push(kind);
  }
  return out;
}

export const warning = (diagnostics: string) => ({
  fullUrl: `urn:uuid:${randomUUID()}`,
  resource: operationOutcome([{ severity: 'warning', code: 'informational', diagnostics }]),
  search: { mode: 'outcome' },
});

/** The patients, as Patient resources (permission pasien.read). */
export async function patientsOf(ix: Interaction, ids: string[], mode: 'match' | 'include', interaction: string): Promise<Entry[]> {
  if (ids.length === 0) return [];
  guard(ix, 'pasien.read');
  const found = await pasienSearch(ix.scope).search({
    conditions: [{ field: 'id', anyOf: ids }],
    sort: 'default',
    limit: ids.length,
    audit: via(interaction),
  });
  const tenantId = ix.scope.db.tenantId;
  return found.items.map((p) => ({ fullUrl: `${ix.base}/Patient/${p.id}`, resource: toPatient(p, tenantId), search: { mode } }));
}

/** The patients of `pasienIds` the caller may reach (need-to-know); the others are named in a warning. */
async function reachablePatients(ix: Interaction, kind: ServedKind, pasienIds: string[], notes: string[]): Promise<string[]> {
  const reached: string[] = [];
  for (const pasienId of pasienIds) {
    try {
      await needToKnowFor(ix, `${kind}.read`, { pasienId });
      reached.push(pasienId);
    } catch (err) {
      if (!(err instanceof TRPCError && (err.code === 'FORBIDDEN' || err.code === 'NOT_FOUND'))) throw err;
      notes.push(`${FHIR_TYPE[kind]} of Patient/${pasienId} left out: no treatment relationship (nor break-the-glass grant)`);
    }
  }
  return reached;
}

/**
 * A kind's entries about `pasienIds` (and of `kunjunganIds` when given) that the caller may reach, at
 * most INCLUDED_MAX. Refused outright (403) when the scopes or the role do not reach the type at all.
 */
export async function clinicalOf(
  ix: Interaction,
  kind: ServedKind,
  target: { pasienIds: string[]; kunjunganIds?: string[] },
  mode: 'match' | 'include',
  interaction: string,
  notes: string[],
): Promise<Entry[]> {
  const allowed = clinicalGuard(ix, `${kind}.read`);
  const candidates = allowed.patientId !== undefined ? target.pasienIds.filter((p) => p === allowed.patientId) : target.pasienIds;
  const pasienIds = await reachablePatients(ix, kind, [...new Set(candidates)], notes);
  if (pasienIds.length === 0) return [];
  const kategori = kategoriOf(kind, allowed);
  const query: EntryQuery = {
    kind,
    pasienIds: [pasienIds],
    kunjunganIds: target.kunjunganIds ? [target.kunjunganIds] : [],
    ids: [],
    kode: [],
    kategori: kategori ? [kategori] : [],
    waktu: [],
    updated: [],
    status: [],
    includeEnteredInError: false,
    sort: '-waktu',
    limit: INCLUDED_MAX,
    audit: via(interaction),
  };
  const result = await klinisSearch(ix.scope).search(query);
  if (result.more)
    notes.push(`more than ${INCLUDED_MAX} ${FHIR_TYPE[kind]} resources: the rest through ${FHIR_TYPE[kind]}?patient=<id> (paged)`);
  const ctx = await mappingContext(ix);
  const type = FHIR_TYPE[kind];
  return result.items.map((e) => ({ fullUrl: `${ix.base}/${type}/${e.id}`, resource: toResource(e, ctx), search: { mode } }));
}

/** What an Encounter search's `_include` and `_revinclude` bring for the visits on its page. */
export async function encounterIncludes(
  ix: Interaction,
  includes: Includes,
  visits: { id: string; pasienId: string }[],
): Promise<{ entries: Entry[]; notes: string[] }> {
  const notes: string[] = [];
  const entries: Entry[] = [];
  const pasienIds = [...new Set(visits.map((v) => v.pasienId))];
  if (includes.subject) entries.push(...(await patientsOf(ix, pasienIds, 'include', 'include')));
  for (const kind of includes.revinclude) {
    if (visits.length === 0) {
      clinicalGuard(ix, `${kind}.read`);
      continue;
    }
    entries.push(...(await clinicalOf(ix, kind, { pasienIds, kunjunganIds: visits.map((v) => v.id) }, 'include', 'revinclude', notes)));
  }
  return { entries, notes };
}

/** A refusal of one part of an answer, as a warning rather than a failure of the whole (for $everything). */
export async function partOf(notes: string[], what: string, load: () => Promise<Entry[]>): Promise<Entry[]> {
  try {
    return await load();
  } catch (err) {
    if (!(err instanceof FhirError && err.status === 403)) throw err;
    notes.push(`${what} left out: ${err.message}`);
    return [];
  }
}
