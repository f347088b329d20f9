// The instance interactions on Patient (read, vread, history, update, delete) and create, including
// conditional create. Each goes through the same guard (scopes, then role), the same tenant-scoped
// store and the same audit trail as the tRPC procedures; errors go to the OperationOutcome writer.
import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { Archived, pasienHistory, pasienSearch, pasienStore } from '../pasien/index.ts';
import type { Pasien, PasienVersion } from '../pasien/index.ts';
import { guard, patientIdOf, preferOf, via } from './context.ts';
import type { Interaction } from './context.ts';
import { fromPatient, toPatient } from './mapping.ts';
import { FhirError, operationOutcome } from './outcome.ts';
import { DEFAULT_COUNT, MAX_COUNT, parseSearch } from './params.ts';
import { readResource, sendResource, versionFromIfMatch, versionHeaders } from './wire.ts';

const deleted = () => new FhirError(410, 'deleted', 'Patient is deleted (archived)');
const locationOf = (ix: Interaction, p: Pasien) => `${ix.base}/Patient/${p.id}/_history/${p.version}`;

/** A written resource, as the Prefer header asks: the resource, nothing, or an OperationOutcome. */
function sendWritten(ix: Interaction, status: number, p: Pasien, note: string): void {
  const headers = versionHeaders(p.version, p.updatedAt, locationOf(ix, p));
  const prefer = preferOf(ix.req).return;
  if (prefer === 'minimal') {
    ix.res.writeHead(status, { 'cache-control': 'no-store', ...headers }).end();
    return;
  }
  const body =
    prefer === 'OperationOutcome'
      ? operationOutcome([{ severity: 'information', code: 'informational', diagnostics: note }])
      : toPatient(p, ix.scope.db.tenantId);
  sendResource(ix.res, status, body, ix.pretty, headers);
}

export async function read(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.read');
  const id = patientIdOf(ix, patientId);
  const p = await pasienStore(ix.scope).getPasien(id, via('read'));
  if (p.status === 'archived') throw deleted();
  sendResource(ix.res, 200, toPatient(p, ix.scope.db.tenantId), ix.pretty, versionHeaders(p.version, p.updatedAt));
}

const isDeletion = (v: PasienVersion, previous?: PasienVersion) => v.pasien.status === 'archived' && previous?.pasien.status !== 'archived';

export async function vread(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.read');
  const id = patientIdOf(ix, patientId);
  const version = /^\d{1,9}$/.test(ix.vid ?? '') ? Number(ix.vid) : 0;
  const found = version > 0 ? await pasienHistory(ix.scope).version(id, version, via('vread')) : undefined;
  if (!found) throw new FhirError(404, 'not-found', `Patient version ${ix.vid ?? ''} not found`);
  if (found.pasien.status === 'archived') throw deleted();
  sendResource(
    ix.res,
    200,
    toPatient(found.pasien, ix.scope.db.tenantId),
    ix.pretty,
    versionHeaders(found.pasien.version, found.recordedAt),
  );
}

/** `Patient/[id]/_history`: a history Bundle, newest version first, paged with `_count` and a cursor. */
export async function history(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.read');
  const id = patientIdOf(ix, patientId);
  const raw = ix.query.get('_count');
  if (raw !== null && !/^\d{1,6}$/.test(raw))
    throw new FhirError(400, 'invalid', '_count must be a whole number', { expression: ['_count'] });
  const count = Math.min(MAX_COUNT, raw === null ? DEFAULT_COUNT : Number(raw));
  const cursor = ix.query.get('_cursor');
  let before: number | undefined;
  if (cursor !== null) {
    const [of, version] = ix.scope.cursors.open(cursor, 'fhir.history', ix.scope.db.tenantId);
    if (of !== id || typeof version !== 'number')
      throw new FhirError(400, 'invalid', 'the cursor belongs to another history', { expression: ['_cursor'] });
    before = version;
  }
  // One version more than the page, to tell whether the oldest on the page was a deletion.
  const page = await pasienHistory(ix.scope).versions(
    id,
    { limit: count + 1, ...(before !== undefined ? { before } : {}) },
    via('history'),
  );
  if (page.items.length === 0) throw new FhirError(404, 'not-found', 'Patient not found');
  const shown = page.items.slice(0, count);
  const entry = shown.map((v, i) => {
    const gone = isDeletion(v, page.items[i + 1]);
    const first = v.pasien.version === 1;
    return {
      fullUrl: `${ix.base}/Patient/${id}`,
      ...(gone ? {} : { resource: toPatient(v.pasien, ix.scope.db.tenantId) }),
      request: { method: first ? 'POST' : gone ? 'DELETE' : 'PUT', url: first ? 'Patient' : `Patient/${id}` },
      response: { status: first ? '201' : gone ? '204' : '200', etag: `W/"${v.pasien.version}"`, lastModified: v.recordedAt },
    };
  });
  const self = `${ix.base}/Patient/${id}/_history?_count=${count}${cursor ? `&_cursor=${encodeURIComponent(cursor)}` : ''}`;
  const link = [{ relation: 'self', url: self }];
  const last = shown[shown.length - 1];
  if (page.items.length > count && last) {
    const next = ix.scope.cursors.seal('fhir.history', ix.scope.db.tenantId, [id, last.pasien.version]);
    link.push({ relation: 'next', url: `${ix.base}/Patient/${id}/_history?_count=${count}&_cursor=${encodeURIComponent(next)}` });
  }
  sendResource(ix.res, 200, { resourceType: 'Bundle', id: randomUUID(), type: 'history', link, entry }, ix.pretty);
}

export async function create(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.create');
  if (patientId) throw new FhirError(403, 'forbidden', 'a patient/ scope cannot register another patient');
  const input = fromPatient(await readResource(ix.req, ix.maxBodyBytes), ix.scope.db.tenantId);
  const condition = ix.req.headers['if-none-exist'];
  if (condition === undefined) {
    const created = await pasienStore(ix.scope).createPasien(input, via('create'));
    return sendWritten(ix, 201, created, `Patient/${created.id} created`);
  }
  // Conditional create: the condition is a search; finding one answers it instead of creating.
  guard(ix, 'pasien.list');
  const parsed = parseSearch(new URLSearchParams(String(condition)), { tenantId: ix.scope.db.tenantId, strict: true });
  if (parsed.conditions.length === 0)
    throw new FhirError(400, 'invalid', 'If-None-Exist needs search criteria, e.g. identifier=https://fhir.kemkes.go.id/id/nik|<NIK>');
  const lookup = () =>
    pasienSearch(ix.scope).search({
      conditions: parsed.conditions,
      sort: 'default',
      limit: 2,
      audit: { ...via('conditional-create'), filters: parsed.used.map(([k]) => k) },
    });
  const existing = await lookup();
  if (existing.items.length > 1) throw new FhirError(412, 'multiple-matches', 'If-None-Exist matches more than one patient');
  if (existing.items[0]) return sendWritten(ix, 200, existing.items[0], `Patient/${existing.items[0].id} already exists`);
  try {
    const created = await pasienStore(ix.scope).createPasien(input, via('conditional-create'));
    return sendWritten(ix, 201, created, `Patient/${created.id} created`);
  } catch (err) {
    // Registered meanwhile by someone else (the NIK is unique per hospital): answer as if found.
    if (!(err instanceof TRPCError && err.code === 'CONFLICT')) throw err;
    const raced = await lookup();
    if (raced.items.length !== 1) throw err;
    return sendWritten(ix, 200, raced.items[0]!, `Patient/${raced.items[0]!.id} already exists`);
  }
}

export async function update(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.update');
  const id = patientIdOf(ix, patientId);
  const body = await readResource(ix.req, ix.maxBodyBytes);
  if (typeof body.id !== 'string' || body.id.toLowerCase() !== id) {
    throw new FhirError(400, 'invalid', 'the resource id must be present and equal the id in the URL', { expression: ['Patient.id'] });
  }
  const input = fromPatient(body, ix.scope.db.tenantId);
  const expectedVersion = versionFromIfMatch(ix.req.headers['if-match']);
  const updated = await pasienStore(ix.scope).updatePasien(
    { id, ...(expectedVersion !== undefined ? { expectedVersion } : {}), ...input },
    via('update'),
  );
  sendWritten(ix, 200, updated, `Patient/${id} updated`);
}

/** Delete is the record's archive: kept (vread and _history still show it), read answers 410. */
export async function remove(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.archive');
  const id = patientIdOf(ix, patientId);
  let note = `Patient/${id} deleted (archived)`;
  let headers: Record<string, string> = {};
  try {
    const archived = await pasienStore(ix.scope).archivePasien(id, 'deleted through the FHIR interface', via('delete'));
    headers = { etag: `W/"${archived.version}"` };
  } catch (err) {
    // Deleting what is already deleted changes nothing and succeeds (FHIR R4 delete).
    if (!(err instanceof TRPCError && err.cause instanceof Archived)) throw err;
    note = `Patient/${id} was already deleted`;
  }
  sendResource(ix.res, 200, operationOutcome([{ severity: 'information', code: 'informational', diagnostics: note }]), ix.pretty, headers);
}
