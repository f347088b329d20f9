// FHIR Bulk Data export (v2) for backend services and the hospital's administrator: kick-off at the hospital level (`$export`), for all
// patients (`Patient/$export`) or one (`Patient/{id}/$export`); the status URL (202 with X-Progress
// and Retry-After while it runs, 429 when polled sooner than EXPORT_POLL_INTERVAL_SECONDS, the manifest
// with Expires when done, DELETE to cancel and remove); one NDJSON file per type, streamed chunk by
// chunk. The token's system/ scopes decide the types; only the client that started a job sees it.
import { once } from 'node:events';
import { SCOPE_READ } from '@simrs/contracts/access';
import { BACKEND_SERVICE_ROLE, scopeGrant } from '@simrs/contracts/smart';
import { ExportBusy, exportJobs } from './bulk-jobs.ts';
import type { ExportJob } from './bulk-jobs.ts';
import { EXPORT_TYPES, parseKickOff } from './bulk-params.ts';
import type { ExportType } from './bulk-params.ts';
import type { Interaction } from './context.ts';
import { FhirError } from './outcome.ts';

export const STATUS_PATH = '/$export-status';
export const FILE_PATH = '/$export-file';
/** How long a client waits before kicking off again when its hospital's export is running. */
const BUSY_RETRY_SECONDS = 60;

const notFound = () => new FhirError(404, 'not-found', 'no such export job (finished ones expire)');

/**
 * Who may export, and which types: a backend service (SMART Backend Services), the types its system/
 * scopes reach in full; and the hospital's administrator, everything, with simrs:read: the hospital
 * taking its own data out (leaving the platform, an audit). Administrators read no clinical content
 * anywhere else; the export is audited like every access.
 */
function reachable(ix: Interaction): Set<ExportType> {
  if (ix.principal.role === 'tenant_admin') {
    if (!ix.principal.scopes.includes(SCOPE_READ)) throw new FhirError(403, 'forbidden', 'this credential lacks the simrs:read scope');
    return new Set(EXPORT_TYPES);
  }
  if (ix.principal.role !== BACKEND_SERVICE_ROLE)
    throw new FhirError(403, 'forbidden', "a bulk export is for backend services and the hospital's administrator");
  return new Set(
    EXPORT_TYPES.filter((t) => {
      const grant = scopeGrant(ix.principal.scopes, 'search', t);
      return grant?.reach === 'all' && !grant.categories;
    }),
  );
}

async function kickOff(ix: Interaction, patientId: string | undefined): Promise<void> {
  const request = parseKickOff(ix.query, ix.req.headers.prefer, reachable(ix));
  if (patientId) {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(patientId);
    const found = uuid ? await ix.scope.db.one(`select 1 from records.pasien where id = $1::uuid`, [patientId]) : [];
    if (!found.length) throw new FhirError(404, 'not-found', `Patient/${patientId} is not known`);
  }
  const requestUrl = requestUrlOf(ix);
  try {
    const job = await exportJobs(ix.scope).start({
      types: request.types,
      requestUrl,
      ...(patientId ? { patientId } : {}),
      ...(request.since ? { since: request.since } : {}),
    });
    ix.res.writeHead(202, { 'content-location': `${ix.base}${STATUS_PATH}/${job.id}`, 'cache-control': 'no-store' }).end();
  } catch (err) {
    if (err instanceof ExportBusy)
      throw new FhirError(429, 'throttled', err.message, { headers: { 'retry-after': String(BUSY_RETRY_SECONDS) } });
    throw err;
  }
}

/** The kick-off URL as the client sent it, on the public base (the manifest's `request`). */
function requestUrlOf(ix: Interaction): string {
  const url = ix.req.url ?? '';
  const at = url.indexOf('/fhir/');
  return `${ix.base}${at >= 0 ? url.slice(at + '/fhir'.length) : ''}`;
}

export const exportSystem = (ix: Interaction) => kickOff(ix, undefined);
export const exportPatients = (ix: Interaction) => kickOff(ix, undefined);
export const exportPatient = (ix: Interaction) => kickOff(ix, ix.id);

function progressOf(job: ExportJob): string {
  return job.types.map((t) => `${t} ${job.progress[t]?.done ? 'done' : `${job.progress[t]?.count ?? 0} so far`}`).join(', ');
}

function manifest(ix: Interaction, job: ExportJob): Record<string, unknown> {
  return {
    transactionTime: job.transactionTime,
    request: job.requestUrl,
    requiresAccessToken: true,
    output: job.types
      .filter((t) => (job.progress[t]?.count ?? 0) > 0)
      .map((t) => ({ type: t, url: `${ix.base}${FILE_PATH}/${job.id}/${t}`, count: job.progress[t]!.count })),
    error: [],
  };
}

export async function exportStatus(ix: Interaction): Promise<void> {
  const pollSeconds = ix.exportPollSeconds ?? 0;
  const { job, tooSoon } = await exportJobs(ix.scope).poll(ix.id!, pollSeconds);
  if (tooSoon)
    throw new FhirError(429, 'throttled', `poll at most every ${pollSeconds} s`, { headers: { 'retry-after': String(pollSeconds) } });
  if (!job) throw notFound();
  if (job.status === 'running') {
    ix.res
      .writeHead(202, { 'x-progress': progressOf(job), 'retry-after': String(Math.max(pollSeconds, 1)), 'cache-control': 'no-store' })
      .end();
    return;
  }
  if (job.status === 'failed') throw new FhirError(500, 'exception', job.error ?? 'the export failed');
  // The manifest is not a FHIR resource: plain JSON, as the Bulk Data specification says.
  ix.res
    .writeHead(200, { 'content-type': 'application/json', expires: new Date(job.expiresAt!).toUTCString(), 'cache-control': 'no-store' })
    .end(JSON.stringify(manifest(ix, job), null, ix.pretty ? 2 : undefined));
}

export async function exportCancel(ix: Interaction): Promise<void> {
  if (!(await exportJobs(ix.scope).remove(ix.id!))) throw notFound();
  ix.res.writeHead(202, { 'cache-control': 'no-store' }).end();
}

/** One type's file: its chunks in order, one in memory at a time, written as the client reads. */
export async function exportFile(ix: Interaction): Promise<void> {
  const type = ix.vid as ExportType;
  if (!(EXPORT_TYPES as readonly string[]).includes(type)) throw notFound();
  const jobs = exportJobs(ix.scope);
  const job = await jobs.download(ix.id!, type);
  if (!job) throw notFound();
  ix.res.writeHead(200, { 'content-type': 'application/fhir+ndjson', 'cache-control': 'no-store' });
  let seq = 0;
  for (let chunk = await jobs.chunkAfter(job.id, type, seq); chunk; chunk = await jobs.chunkAfter(job.id, type, seq)) {
    // Removed meanwhile: the transfer is broken off, so the client sees a failed download, not a short file.
    if (chunk === 'removed') return void ix.res.destroy();
    seq = chunk.seq;
    if (!ix.res.write(chunk.body)) await Promise.race([once(ix.res, 'drain'), once(ix.res, 'close')]);
    if (ix.res.destroyed) return; // the client went away
  }
  ix.res.end();
}
