// The export worker each records replica runs: it leases one running job at a time (any tenant's;
// records.export_claim, FOR UPDATE SKIP LOCKED, so two replicas never work on the same job) and writes
// it page by page under that job's tenant. Each page is read from its type's cursor, then stored as
// one chunk with the cursor advanced, in one statement that matches only while the job runs and its
// cursor is where the page was read from (cancelled, or taken over: stop). So a replica that dies
// mid-page leaves the page undone and whoever takes the lapsed lease writes it once. Finished jobs past
// their expiry are removed with their files.
import type { Pool } from '@simrs/platform/db';
import { isUnavailable, tenantDb } from '../db/index.ts';
import type { Querier, TenantDb } from '../db/index.ts';
import { log } from '../server/index.ts';
import type { ExportType } from './bulk-params.ts';
import { JOB_COLUMNS, toJob } from './bulk-jobs.ts';
import type { ExportJob, TypeProgress } from './bulk-jobs.ts';
import { mappingContext, NdjsonBuffer, readPage } from './bulk-sources.ts';
import type { Page } from './bulk-sources.ts';
import type { MappingContext } from './clinical-mapping.ts';

export interface ExportWorkerOptions {
  pageSize: number;
  ttlSeconds: number;
  intervalMs: number;
  leaseSeconds: number;
}

type Row = Record<string, unknown>;

/** What a job's pages share: the job, how its rows map, and the two buffers pages alternate in. */
interface JobState {
  job: ExportJob;
  ctx: MappingContext;
  buffers: [NdjsonBuffer, NdjsonBuffer];
}

const FRESH: TypeProgress = { count: 0, seq: 0, done: false };

/**
 * Advances the type's cursor past a page read from `from` and stores the page as the next chunk, as one
 * statement (one round trip with its transaction: the worker is meanwhile busy mapping the next page,
 * and every round trip waits for it). The update matches only a running job whose cursor is still
 * `from`: a cancelled job, or one whose lease lapsed and another replica went on, gets nothing written.
 * The chunk's insert reads the update's row, so it happens only with it. The commit does not wait for
 * its WAL flush: a crash that loses the last pages loses each chunk with its cursor, and the job writes
 * them again from the cursor.
 */
const COMMIT_PAGE = `with advanced as (
    update records.export_job
       set progress = jsonb_set(progress, array[$2::text], $3::jsonb), lease_until = now() + make_interval(secs => $4::int)
     where id = $1::uuid and status = 'running'
       and coalesce((progress -> $2::text ->> 'seq')::int, 0) = $5::int
       and (progress -> $2::text ->> 'after') is not distinct from $6::text
    returning id
  ), chunk as (
    insert into records.export_chunk (job_id, type, seq, lines, body)
    select id, $2::text, $7::int, $8::int, $9::text from advanced where $8::int > 0
  )
  select count(*)::int as advanced, set_config('synchronous_commit', 'off', true) as commit_mode from advanced`;

/** The cursor after committing `page` (read from `from`), or undefined when the job is no longer this worker's. */
async function commitPage(db: TenantDb, jobId: string, type: ExportType, from: TypeProgress, page: Page, opts: ExportWorkerOptions) {
  const next: TypeProgress = {
    after: page.last ?? from.after,
    count: from.count + page.lines,
    seq: from.seq + (page.lines ? 1 : 0),
    done: page.lines < opts.pageSize,
  };
  const [row] = await db.one<{ advanced: number }>(COMMIT_PAGE, [
    jobId,
    type,
    JSON.stringify(next),
    opts.leaseSeconds,
    from.seq,
    from.after ?? null,
    next.seq,
    page.lines,
    // A Buffer goes to Postgres as the text's bytes (binary format), not copied into a string first.
    page.body,
  ]);
  return row?.advanced === 1 ? next : undefined;
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

  /**
   * Writes `type` from its cursor to its end; false when the job stopped being this worker's. The next
   * page is read (in its own transaction) while the last one commits, so records maps rows while
   * Postgres compresses and writes the chunk before them: the two buffers alternate between the page
   * being committed and the page being read.
   */
  async function writeType(db: TenantDb, jobId: string, type: ExportType, state: JobState, start: TypeProgress): Promise<boolean> {
    let turn = 0;
    const read = (after: string | undefined) => {
      const query = { after, since: state.job.since ?? undefined, patientId: state.job.patientId ?? undefined, limit: opts.pageSize };
      // The buffer is chosen once per page, outside the transaction: a read that db.tx sends again
      // (Postgres unavailable) must not take the other buffer, which holds the page being committed.
      const out = state.buffers[turn++ % 2]!;
      const reading = db.tx((q) => readPage(q, type, query, state.ctx, out));
      reading.catch(() => {}); // awaited below; a failure before then is not unhandled
      return reading;
    };
    let progress = start;
    let next = read(progress.after);
    try {
      while (!progress.done) {
        const page = await next;
        if (page.lines === opts.pageSize && !stopping) next = read(page.last);
        const committed = await commitPage(db, jobId, type, progress, page, opts);
        if (!committed) return false;
        progress = committed;
        if (stopping && !progress.done) return false; // the lease lapses; this replica or another resumes at the cursor
      }
      return true;
    } finally {
      await next.catch(() => {});
    }
  }

  async function work(jobId: string, tenantId: string): Promise<void> {
    const db = tenantDb(pool, tenantId);
    const [row] = await db.one<Row>(`select ${JOB_COLUMNS} from records.export_job j where j.id = $1::uuid`, [jobId]);
    if (!row) return;
    const job = toJob(row);
    const state: JobState = {
      job,
      ctx: await db.tx((q) => mappingContext(q, tenantId)),
      buffers: [new NdjsonBuffer(), new NdjsonBuffer()],
    };
    for (const type of job.types) {
      const start = job.progress[type] ?? FRESH;
      if (stopping || (!start.done && !(await writeType(db, jobId, type, state, start)))) return;
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
