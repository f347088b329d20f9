// Search of Observation, Condition and AllergyIntolerance: always about one patient or one visit (a
// clinician's search across every patient is refused: need-to-know is decided per patient), after
// scopes (their categories narrow the search), role and need-to-know for each patient or visit named.
// One keyset page, newest first by default; `next` carries a sealed cursor bound to the tenant and to
// the search, as Patient search does.
import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import type { ClinicalSubject, Permission } from '../access/index.ts';
import { klinisSearch } from '../klinis/index.ts';
import { parseClinicalSearch } from './clinical-params.ts';
import type { ParsedClinical } from './clinical-params.ts';
import { FHIR_TYPE, toResource } from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { kategoriOf, mappingContext } from './clinical-read.ts';
import { clinicalGuard, needToKnowFor, preferOf, via } from './context.ts';
import type { Interaction } from './context.ts';
import { FhirError, operationOutcome } from './outcome.ts';
import { readForm, sendResource } from './wire.ts';

/** Need-to-know for every patient and visit the search names; a launch patient's scope names its patient. */
async function guardSearch(ix: Interaction, kind: ServedKind, parsed: ParsedClinical): Promise<void> {
  const permission = `${kind}.read` as const;
  const allowed = clinicalGuard(ix, permission);
  const q = parsed.query;
  const kategori = kategoriOf(kind, allowed);
  if (kategori) q.kategori.push(kategori);
  if (allowed.patientId !== undefined) {
    // Whatever else is asked, only the launch patient's entries: other patients AND away to nothing.
    q.pasienIds.push([allowed.patientId]);
    await needToKnowFor(ix, permission, { pasienId: allowed.patientId });
    return;
  }
  if (q.pasienIds.length === 0 && q.kunjunganIds.length === 0)
    throw new FhirError(
      400,
      'required',
      `search ${FHIR_TYPE[kind]} by patient (or subject) or encounter: clinical entries are reached one patient at a time`,
      {
        expression: ['patient'],
      },
    );
  for (const set of q.pasienIds) for (const pasienId of set) await reachable(ix, permission, { pasienId });
  for (const set of q.kunjunganIds) for (const kunjunganId of set) await reachable(ix, permission, { kunjunganId });
}

/**
 * Need-to-know for one subject. One not in the caller's hospital (or nowhere) is no refusal: the search
 * finds nothing for it, as for any reference to nothing, and says nothing about other hospitals.
 */
async function reachable(ix: Interaction, permission: Permission, subject: ClinicalSubject): Promise<void> {
  try {
    await needToKnowFor(ix, permission, subject);
  } catch (err) {
    if (!(err instanceof TRPCError && err.code === 'NOT_FOUND')) throw err;
  }
}

export async function searchEntries(ix: Interaction, kind: ServedKind): Promise<void> {
  const query = new URLSearchParams(ix.query);
  if (ix.req.method === 'POST') for (const [k, v] of await readForm(ix.req, ix.maxBodyBytes)) query.append(k, v);
  const parsed = parseClinicalSearch(kind, query, preferOf(ix.req).strict);
  await guardSearch(ix, kind, parsed);
  const tenantId = ix.scope.db.tenantId;
  let after: [string, string] | undefined;
  if (parsed.cursor !== undefined) {
    const [digest, key, id] = ix.scope.cursors.open(parsed.cursor, 'fhir.search', tenantId).map(String);
    if (digest !== parsed.digest || key === undefined || id === undefined)
      throw new FhirError(400, 'invalid', '_cursor belongs to another search: page with the links of this one', {
        expression: ['_cursor'],
      });
    after = [key, id];
  }
  const result = await klinisSearch(ix.scope).search({
    ...parsed.query,
    kind,
    limit: parsed.count,
    ...(after ? { after } : {}),
    audit: { ...via('search'), filters: parsed.used.map(([k]) => k).join(','), ...(after ? { page: 'next' } : {}) },
  });
  const type = FHIR_TYPE[kind];
  const params = [...parsed.used.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), `_count=${parsed.count}`];
  const url = (cursor?: string) =>
    `${ix.base}/${type}?${[...params, ...(cursor ? [`_cursor=${encodeURIComponent(cursor)}`] : [])].join('&')}`;
  const link = [
    { relation: 'self', url: url(parsed.cursor) },
    { relation: 'first', url: url() },
  ];
  if (result.more && result.lastKey)
    link.push({ relation: 'next', url: url(ix.scope.cursors.seal('fhir.search', tenantId, [parsed.digest, ...result.lastKey])) });
  const ctx = await mappingContext(ix);
  const entry: Record<string, unknown>[] = result.items.map((e) => ({
    fullUrl: `${ix.base}/${type}/${e.id}`,
    resource: toResource(e, ctx),
    search: { mode: 'match' },
  }));
  if (parsed.ignored.length) {
    const issue = {
      severity: 'warning',
      code: 'not-supported',
      diagnostics: `ignored search parameters: ${parsed.ignored.join(', ')}`,
      expression: parsed.ignored,
    } as const;
    entry.push({ fullUrl: `urn:uuid:${randomUUID()}`, resource: operationOutcome([issue]), search: { mode: 'outcome' } });
  }
  sendResource(ix.res, 200, { resourceType: 'Bundle', id: randomUUID(), type: 'searchset', link, entry }, ix.pretty);
}
