// The files of removed and expired exports, deleted in batches (migration 013_export_removal.sql): a
// large hospital's export is tens of thousands of chunks, more than one statement deletes within the
// statement timeout. Each replica sweeps on a loop of its own, beside the job it may be writing, so
// removal goes on while an export runs; two replicas sweeping the same job delete disjoint batches or
// nothing. The chunks are deleted under the job's tenant, as the export wrote them.
import type { Pool } from '@simrs/platform/db';
import { tenantDb } from '../db/index.ts';

/** Jobs looked at per round: the rest are found in the next. */
const JOBS_PER_ROUND = 20;

export interface SweepOptions {
  /** Chunks deleted per statement: a chunk is one page of output, its TOAST deleted with it. */
  batch: number;
  /** Asked between statements, so that a replica stopping does not finish a large job's files first. */
  stopping: () => boolean;
}

/** Deletes a leaving job's chunks a batch at a time, then its row: whether it did, or undefined when stopped first. */
async function sweepJob(pool: Pool, id: string, tenantId: string, opts: SweepOptions): Promise<boolean | undefined> {
  const db = tenantDb(pool, tenantId, { idempotent: true });
  for (let deleted = opts.batch; deleted === opts.batch;) {
    if (opts.stopping()) return undefined;
    const [row] = await db.one<{ n: number }>(
      `with gone as (delete from records.export_chunk c where (c.job_id, c.type, c.seq) in (
           select job_id, type, seq from records.export_chunk where job_id = $1::uuid limit $2) returning 1)
       select count(*)::int as n from gone`,
      [id, opts.batch],
    );
    deleted = row!.n;
  }
  // Another replica's sweep may have deleted it meanwhile.
  const gone = await db.one('delete from records.export_job where id = $1::uuid and expires_at < now() returning id', [id]);
  return gone.length === 1;
}

/** Removes every removed or expired job of every tenant, with its files; the jobs it removed. */
export async function sweepExports(pool: Pool, opts: SweepOptions): Promise<number> {
  let removed = 0;
  for (;;) {
    const { rows } = await pool.query<{ id: string; tenant_id: string }>(
      'select id::text as id, tenant_id from records.export_leaving($1)',
      [JOBS_PER_ROUND],
    );
    let round = 0;
    for (const job of rows) {
      const swept = await sweepJob(pool, job.id, job.tenant_id, opts);
      if (swept === undefined) return removed + round;
      if (swept) round += 1;
    }
    removed += round;
    // A short round was the last; a full one may have more behind it, unless it removed none.
    if (rows.length < JOBS_PER_ROUND || round === 0) return removed;
  }
}
