// The export worker each records replica runs: it leases one running job at a time (any tenant's;
// records.export_claim, FOR UPDATE SKIP LOCKED, so two replicas never work on the same job) and writes
// it page by page under that job's tenant. Each page is read, written as one chunk and its type's
// cursor advanced in one transaction that first re-reads the job (cancelled: stop), so a replica that
// dies mid-page leaves the page undone and whoever takes the lapsed lease writes it once. Finished
// jobs past their expiry are removed with their files.
import type { Pool } from '@simrs/platform/db';
import { isUnavailable, tenantDb } from '../db/index.ts';
import type { Querier } from '../db/index.ts';
import { log } from '../server/index.ts';
import type { ExportType } from './bulk-params.ts';
import { toJob } from './bulk-jobs.ts';
import type { ExportJob, TypeProgress } from './bulk-jobs.ts';
import { mappingContext, NdjsonBuffer, readPage } from './bulk-sources.ts';
import type { MappingContext } from './clinical-mapping.ts';

export interface ExportWorkerOptions {
  pageSize: number;
  ttlSeconds: number;
  intervalMs: number;
  leaseSeconds: number;
}

type Row = Record<string, unknown>;

/** What a job's pages share: how its rows map, and the buffer each page is written into in turn. */
interface JobState {
  ctx: MappingContext;
  out: NdjsonBuffer;
}

/** One page of `type` in one transaction; false when the job is gone (cancelled) or the type is done. */
async function writePage(q: Querier, jobId: string, type: ExportType, state: JobState, opts: ExportWorkerOptions): Promise<boolean> {
  const [row] = await q.query<Row>(
    `select j.id::text as id, j.client_id, j.patient_id::text as patient_id, j.types, j.since, j.request_url, j.transaction_time,
            j.status, j.progress, j.error, j.expires_at
       from records.export_job j where j.id = $1::uuid and j.status = 'running' for update`,
    [jobId],
  );
  if (!row) return false;
  // A page's commit need not wait for its WAL flush: the chunk and its cursor commit together, so a
  // crash that loses the last pages loses both, and the job writes them again from the cursor.
  await q.query('set local synchronous_commit = off');
  const job = toJob(row);
  const progress: TypeProgress = job.progress[type] ?? { count: 0, seq: 0, done: false };
  if (progress.done) return false;
  const page = await readPage(
    q,
    type,
    { after: progress.after, since: job.since ?? undefined, patientId: job.patientId ?? undefined, limit: opts.pageSize },
    state.ctx,
    state.out,
  );
  const next: TypeProgress = {
    after: page.last ?? progress.after,
    count: progress.count + page.lines,
    seq: progress.seq + (page.lines ? 1 : 0),
    done: page.lines < opts.pageSize,
  };
  if (page.lines)
    await q.query(`insert into records.export_chunk (job_id, type, seq, lines, body) values ($1::uuid, $2, $3, $4, $5)`, [
      jobId,
      type,
      next.seq,
      page.lines,
      // A Buffer goes to Postgres as the text's bytes (binary format), not copied into a string first.
      page.body,
    ]);
  await q.query(
    `update records.export_job set progress = jsonb_set(progress, array[$2::text], $3::jsonb),
       lease_until = now() + make_interval(secs => $4) where id = $1::uuid`,
    [jobId, type, JSON.stringify(next), opts.leaseSeconds],
  );
  return !next.done;
}

async function finish(q: Querier, jobId: string, ttlSeconds: number, error?: string): Promise<void> {
  await q.query(
    `update records.export_job set status = $2, error = $3, finished_at = now(), lease_until = null,
       expires_at = now() + make_interval(secs => $4) where id = $1::uuid and status = 'running'`,
    [jobId, error ? 'failed' : 'done', error ?? null, ttlSeconds],
  );
}

export function startExportWorker(pool: Pool, opts: ExportWorkerOptions) {
  let stopping = false;
  let running: Promise<void> | undefined;

  async function work(jobId: string, tenantId: string): Promise<void> {
    const db = tenantDb(pool, tenantId);
    const [row] = await db.one<Row>(`select types from records.export_job where id = $1::uuid`, [jobId]);
    if (!row) return;
    const state: JobState = { ctx: await db.tx((q) => mappingContext(q, tenantId)), out: new NdjsonBuffer() };
    for (const type of row.types as ExportJob['types']) {
      while (!stopping && (await db.tx((q) => writePage(q, jobId, type, state, opts))));
      if (stopping) return; // the lease lapses; this replica or another resumes at the cursor
    }
    await db.tx((q) => finish(q, jobId, opts.ttlSeconds));
  }

  async function tick(): Promise<void> {
    await pool.query('select records.export_expire()');
    const { rows } = await pool.query<{ id: string; tenant_id: string }>('select id::text as id, tenant_id from records.export_claim($1)', [
      opts.leaseSeconds,
    ]);
    const claimed = rows[0];
    if (!claimed) return;
    try {
      await work(claimed.id, claimed.tenant_id);
    } catch (err) {
      // Postgres away: the lease lapses and the job resumes at its cursor once it is back.
      if (isUnavailable(err)) throw err;
      log.error({ err, job: claimed.id }, 'bulk export failed');
      await tenantDb(pool, claimed.tenant_id)
        .tx((q) => finish(q, claimed.id, opts.ttlSeconds, 'the export failed on the server; start a new one'))
        .catch(() => {});
    }
  }

  const timer = setInterval(() => {
    if (running || stopping) return;
    running = tick()
      .catch((err: unknown) => log.warn({ err }, 'bulk export worker: database unavailable, retrying'))
      .finally(() => (running = undefined));
  }, opts.intervalMs);

  return {
    /** Stops after the page in hand; the job's lease then lapses and it resumes elsewhere. */
    async stop(): Promise<void> {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
