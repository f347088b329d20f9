// The files of removed and expired exports, deleted in batches (migration 013_export_removal.sql): a
// large hospital's export is tens of thousands of chunks, more than one statement deletes within the
// statement timeout. Each replica sweeps on a loop of its own, beside the job it may be writing, so
// removal goes on while an export runs. A round takes one batch of each leaving job, so a large job
// does not keep another hospital's files past their expiry; replicas sweeping at once take turns on
// a job, a batch each, and a job's row goes only once it has no chunks left (never a cascade over
// them). The chunks are deleted under the job's tenant, as the export wrote them.
import type { Pool } from '@simrs/platform/db';
import { runPeriodically } from '@simrs/platform/periodic';
import type { Periodic } from '@simrs/platform/periodic';
import { isUnavailable, tenantDb } from '../db/index.ts';
import { log } from '../server/index.ts';

/** Jobs a round takes a batch of: the rest are found once these are gone. */
const JOBS_PER_ROUND = 20;

export interface SweepOptions {
  /** Chunks deleted per statement: a chunk is one page of output, its TOAST deleted with it. */
  batch: number;
  /** Asked between statements, so that a replica stopping does not finish a large job's files first. */
  stopping: () => boolean;
}

/** What one step on a job did: deleted chunks, removed the job, or nothing (another replica holds its last chunks, or it failed). */
type Step = 'chunks' | 'removed' | 'none';

/** One batch of a leaving job's chunks, or, when none is left, its row. */
async function sweepStep(pool: Pool, id: string, tenantId: string, batch: number): Promise<Step> {
  const db = tenantDb(pool, tenantId, { idempotent: true });
  const [row] = await db.one<{ n: number }>(
    // One replica at a time on a job (the lock lasts the statement's transaction): another that finds
    // it taken deletes nothing this round, rather than waiting on the same rows and finding them gone.
    `with gone as (delete from records.export_chunk c where (c.job_id, c.type, c.seq) in (
         select job_id, type, seq from records.export_chunk
          where job_id = $1::uuid and (select pg_try_advisory_xact_lock(hashtext('records.export_sweep ' || $1::text))) limit $2) returning 1)
     select count(*)::int as n from gone`,
    [id, batch],
  );
  if (row!.n > 0) return 'chunks';
  const gone = await db.one(
    `delete from records.export_job j where j.id = $1::uuid and j.expires_at < now()
        and not exists (select 1 from records.export_chunk c where c.job_id = j.id) returning j.id`,
    [id],
  );
  return gone.length === 1 ? 'removed' : 'none';
}

/** Removes the removed and expired jobs of every tenant with their files, round by round; the jobs it removed. */
export async function sweepExports(pool: Pool, opts: SweepOptions): Promise<number> {
  let removed = 0;
  for (let progressed = true; progressed;) {
    progressed = false;
    const { rows } = await pool.query<{ id: string; tenant_id: string }>(
      'select id::text as id, tenant_id from records.export_leaving($1)',
      [JOBS_PER_ROUND],
    );
    for (const job of rows) {
      if (opts.stopping()) return removed;
      const step = await sweepStep(pool, job.id, job.tenant_id, opts.batch).catch((err: unknown): Step => {
        // Postgres away: the whole sweep waits for it. Anything else is this job's alone: the others go on.
        if (isUnavailable(err)) throw err;
        log.error({ err, job: job.id }, 'bulk export sweep: removing a job failed');
        return 'none';
      });
      if (step === 'removed') removed += 1;
      if (step !== 'none') progressed = true;
    }
  }
  return removed;
}

/** Sweeps every `intervalMs`, one sweep at a time; stop() ends it after the statement in hand. */
export function startExportSweep(pool: Pool, opts: { batch: number; intervalMs: number }): Periodic {
  return runPeriodically(
    (stopping) =>
      sweepExports(pool, { batch: opts.batch, stopping })
        .then((removed) => void (removed > 0 && log.info({ removed }, 'bulk export: removed and expired jobs deleted with their files')))
        .catch((err: unknown) => log.warn({ err }, 'bulk export sweep: database unavailable, retrying')),
    opts.intervalMs,
  );
}
