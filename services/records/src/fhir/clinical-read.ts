// Read, vread and history of Observation, Condition and AllergyIntolerance: scopes (with their
// categories), then the role, then need-to-know for the entry's patient, then the tenant-scoped store,
// whose reads write their audit rows. Entered-in-error entries stay readable by id and in the history.
import { randomUUID } from 'node:crypto';
import type { Permission } from '../access/index.ts';
import { klinisStore } from '../klinis/index.ts';
import type { Entry, Only } from '../klinis/index.ts';
import { settingsStore } from '../poli/index.ts';
import { FHIR_TYPE, KATEGORI, toResource } from './clinical-mapping.ts';
import type { MappingContext, ServedKind } from './clinical-mapping.ts';
import { categoryAllowed, clinicalGuard, needToKnowFor, via } from './context.ts';
import type { ClinicalAllowed, Interaction } from './context.ts';
import { FhirError } from './outcome.ts';
import { sendResource, versionHeaders } from './wire.ts';

export const KIND_OF_TYPE = new Map<string, ServedKind>([
  ['Observation', 'vital'],
  ['Condition', 'diagnosis'],
  ['AllergyIntolerance', 'alergi'],
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const notFoundOf = (kind: ServedKind) => new FhirError(404, 'not-found', `${FHIR_TYPE[kind]} not found`);

/** The entry id of the path: anything that cannot be one is simply not found. */
export function entryIdOf(ix: Interaction, kind: ServedKind): string {
  if (!UUID.test(ix.id ?? '')) throw notFoundOf(kind);
  return ix.id!.toLowerCase();
}

export async function mappingContext(ix: Interaction): Promise<MappingContext> {
  return { tenantId: ix.scope.db.tenantId, organizationId: (await settingsStore(ix.scope).getSettings()).organizationId };
}

/** The kind's categories (records.klinis.kategori) a grant reaches; undefined: all of them. */
export function kategoriOf(kind: ServedKind, allowed: ClinicalAllowed): string[] | undefined {
  const categories = allowed.grant.categories;
  if (!categories) return undefined;
  return KATEGORI[kind].codes.filter((k) => k !== 'none' && categoryAllowed(categories, KATEGORI[kind].system, k));
}

/**
 * The guard of an interaction on one entry: scopes, role, need-to-know. A launch patient's scope
 * reaches only that patient's entries; another's is as missing as a foreign one.
 */
export async function guardEntry(
  ix: Interaction,
  kind: ServedKind,
  permission: Permission,
): Promise<{ id: string; only: Only; pasienId: string }> {
  const allowed = clinicalGuard(ix, permission);
  const id = entryIdOf(ix, kind);
  const { pasienId } = await needToKnowFor(ix, permission, { klinisId: id });
  if (allowed.patientId !== undefined && allowed.patientId !== pasienId) throw notFoundOf(kind);
  return { id, only: { kategori: kategoriOf(kind, allowed) }, pasienId };
}

export async function readEntry(ix: Interaction, kind: ServedKind): Promise<void> {
  const { id, only } = await guardEntry(ix, kind, `${kind}.read`);
  const e = await catchNotFound(kind, klinisStore(ix.scope).get(kind, id, via('read'), only));
  sendResource(ix.res, 200, toResource(e, await mappingContext(ix)), ix.pretty, versionHeaders(e.version, e.updatedAt));
}

async function catchNotFound<T>(kind: ServedKind, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if ((err as { code?: string }).code === 'NOT_FOUND') throw notFoundOf(kind);
    throw err;
  }
}

export async function vreadEntry(ix: Interaction, kind: ServedKind): Promise<void> {
  const { id, only } = await guardEntry(ix, kind, `${kind}.read`);
  const version = /^\d{1,9}$/.test(ix.vid ?? '') ? Number(ix.vid) : 0;
  const versions = await catchNotFound(kind, klinisStore(ix.scope).versions(kind, id, via('vread'), only));
  const found = versions.find((v) => v.version === version);
  if (!found) throw new FhirError(404, 'not-found', `${FHIR_TYPE[kind]} version ${ix.vid ?? ''} not found`);
  sendResource(ix.res, 200, toResource(found, await mappingContext(ix)), ix.pretty, versionHeaders(found.version, found.updatedAt));
}

/** `<Type>/[id]/_history`: every version, newest first, in one Bundle (an entry has a handful of versions). */
export async function historyEntry(ix: Interaction, kind: ServedKind): Promise<void> {
  const { id, only } = await guardEntry(ix, kind, `${kind}.read`);
  const versions = await catchNotFound(kind, klinisStore(ix.scope).versions(kind, id, via('history'), only));
  const ctx = await mappingContext(ix);
  const type = FHIR_TYPE[kind];
  const entry = versions.map((v: Entry) => ({
    fullUrl: `${ix.base}/${type}/${id}`,
    resource: toResource(v, ctx),
    request: { method: v.version === 1 ? 'POST' : 'PUT', url: v.version === 1 ? type : `${type}/${id}` },
    response: { status: v.version === 1 ? '201' : '200', etag: `W/"${v.version}"`, lastModified: new Date(v.updatedAt).toISOString() },
  }));
  const link = [{ relation: 'self', url: `${ix.base}/${type}/${id}/_history` }];
  sendResource(ix.res, 200, { resourceType: 'Bundle', id: randomUUID(), type: 'history', link, entry }, ix.pretty);
}
