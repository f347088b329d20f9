// The export worker each records replica runs: it leases one running job at a time (any tenant's;
// records.export_claim, FOR UPDATE SKIP LOCKED, so two replicas never work on the same job) and has
// it written by its lanes (bulk-lane.ts), each on a worker thread of its own, under that job's tenant.
// The job is done when every lane has written its share of every type. Beside it, on a loop of its
// own, the replica sweeps away removed and expired jobs with their files (bulk-sweep.ts).
import type { Worker } from 'node:worker_threads';
import type { Pool } from '@simrs/platform/db';
import { isUnavailable, tenantDb } from '../db/index.ts';
import type { Querier } from '../db/index.ts';
import { log } from '../server/index.ts';
import { JOB_COLUMNS, toJob } from './bulk-jobs.ts';
import { beginTypes } from './bulk-lane.ts';
import { startExportSweep } from './bulk-sweep.ts';
import type { LaneResult, LaneTask } from './bulk-lane.ts';
import type { LaneThreadData } from './bulk-lane-thread.ts';
import { mappingContext } from './bulk-sources.ts';
import { workerWithOwnYoungGeneration } from '../shims/index.ts';

export interface ExportWorkerOptions {
  pageSize: number;
  ttlSeconds: number;
  intervalMs: number;
  leaseSeconds: number;
  /** Lanes (threads) a hospital's export is written in; one patient's export takes one. */
  lanes: number;
  /** Chunks deleted per statement when a removed or expired job's files go. */
  removeBatch: number;
  databaseUrl: string;
  statementTimeoutMs: number;
}

type Row = Record<string, unknown>;

// The lane thread beside this module: its TypeScript source, or its build when this is the build.
const LANE_THREAD = new URL(`./bulk-lane-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/**
 * A lane's heap. A page's rows and resources are young garbage and its text is outside the heap, so
 * the old generation holds little more than the code. The lanes share one young-generation budget:
 * a lane alone gets all of it, where a scavenge is rarer and the lane maps more rows for its CPU; more
 * lanes split it, down to a floor, so that their peak stays within the pod's memory. (The process's
 * own young generation would be each lane's, but for workerWithOwnYoungGeneration: V8's
 * --max-semi-space-size, which the services run with, otherwise overrides a worker's limit.)
 */
const LANES_YOUNG_GENERATION_MB = 32;
const LANE_YOUNG_GENERATION_FLOOR_MB = 8;

function laneLimits(lanes: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  const young = Math.max(LANE_YOUNG_GENERATION_FLOOR_MB, Math.floor(LANES_YOUNG_GENERATION_MB / lanes));
  return { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: young };
}

/** A job that failed on the server: the client is told to start again, not what broke. */
const FAILED = 'the export failed on the server; start a new one';

async function finish(q: Querier, jobId: string, ttlSeconds: number, error?: string): Promise<void> {
  await q.query(
    `update records.export_job set status = $2, error = $3, finished_at = now(), lease_until = null,
       expires_at = now() + make_interval(secs => $4) where id = $1::uuid and status = 'running'`,
    [jobId, error ? 'failed' : 'done', error ?? null, ttlSeconds],
  );
}

/** Runs one lane on a thread of its own (kept in `threads` while it lives); its result (a thread that died says so as a failure). */
function runLane(task: LaneTask, opts: ExportWorkerOptions, threads: Set<Worker>, stopping: boolean): Promise<LaneResult> {
  const data: LaneThreadData = { task, databaseUrl: opts.databaseUrl, statementTimeoutMs: opts.statementTimeoutMs };
  const thread = workerWithOwnYoungGeneration(LANE_THREAD, { workerData: data, resourceLimits: laneLimits(opts.lanes) });
  threads.add(thread);
  if (stopping) thread.postMessage('stop');
  return new Promise((resolve) => {
    let result: LaneResult | undefined;
    thread.on('message', (answer: LaneResult) => (result = answer));
    thread.on('error', (err) => (result ??= { error: err.stack ?? err.message, unavailable: false }));
    thread.on('exit', () => {
      threads.delete(thread);
      resolve(result ?? { error: 'the lane thread ended without a result', unavailable: false });
    });
  });
}

export function startExportWorker(pool: Pool, opts: ExportWorkerOptions) {
  let stopping = false;
  let running: Promise<void> | undefined;
  const threads = new Set<Worker>();

  async function work(jobId: string, tenantId: string): Promise<void> {
    const db = tenantDb(pool, tenantId);
    const [row] = await db.one<Row>(`select ${JOB_COLUMNS} from records.export_job j where j.id = $1::uuid`, [jobId]);
    if (!row) return;
    const lanes = row.patient_id ? 1 : opts.lanes;
    const job = await db.tx((q) => beginTypes(q, toJob(row), { lanes, pageSize: opts.pageSize, leaseSeconds: opts.leaseSeconds }));
    if (!job) return;
    const ctx = await db.tx((q) => mappingContext(q, tenantId));
    // A thread for each lane with something left to write (a type keeps the lanes it began with).
    const threadCount = Math.max(...job.types.map((t) => job.progress[t]!.lanes.length));
    const open = Array.from({ length: threadCount }, (_, lane) => lane).filter((lane) =>
      job.types.some((t) => job.progress[t]!.lanes[lane]?.done === false),
    );
    if (stopping) return;
    const task = (lane: number): LaneTask => ({ job, tenantId, ctx, lane, pageSize: opts.pageSize, leaseSeconds: opts.leaseSeconds });
    const results = await Promise.all(
      open.map(async (lane) => {
        const result = await runLane(task(lane), opts, threads, stopping);
        // One lane failing stops the others: the job fails, or (Postgres away) resumes later, as a whole.
        if ('error' in result) for (const thread of threads) thread.postMessage('stop');
        return result;
      }),
    );
    // A lane's own failure says more than another's "unavailable" that it may have caused.
    const failures = results.filter((r) => 'error' in r);
    const failed = failures.find((r) => !r.unavailable) ?? failures[0];
    if (failed) {
      // Postgres away: the lease lapses and the job resumes at its lanes' cursors once it is back.
      if (failed.unavailable)
        return log.warn({ job: jobId, err: failed.error }, 'bulk export: database unavailable, the job resumes later');
      log.error({ job: jobId, err: failed.error }, 'bulk export failed');
      return db.tx((q) => finish(q, jobId, opts.ttlSeconds, FAILED)).catch(() => {});
    }
    if (results.every((r) => 'complete' in r && r.complete)) await db.tx((q) => finish(q, jobId, opts.ttlSeconds));
  }

  async function tick(): Promise<void> {
    const { rows } = await pool.query<{ id: string; tenant_id: string }>(
      'select id::text as id, tenant_id from records.export_claim($1, true)',
      [opts.leaseSeconds],
    );
    const claimed = rows[0];
    if (!claimed) return;
    try {
      await work(claimed.id, claimed.tenant_id);
    } catch (err) {
      if (isUnavailable(err)) throw err;
      log.error({ err, job: claimed.id }, 'bulk export failed');
      await tenantDb(pool, claimed.tenant_id)
        .tx((q) => finish(q, claimed.id, opts.ttlSeconds, FAILED))
        .catch(() => {});
    }
  }

  const timer = setInterval(() => {
    if (running || stopping) return;
    running = tick()
      .catch((err: unknown) => log.warn({ err }, 'bulk export worker: database unavailable, retrying'))
      .finally(() => (running = undefined));
  }, opts.intervalMs);

  const sweep = startExportSweep(pool, { batch: opts.removeBatch, intervalMs: opts.intervalMs });

  return {
    /** Stops its lanes after the page in hand (the job's lease then lapses and it resumes elsewhere), and its sweep after the batch in hand. */
    async stop(): Promise<void> {
      stopping = true;
      clearInterval(timer);
      for (const thread of threads) thread.postMessage('stop');
      await Promise.all([running, sweep.stop()]);
    },
  };
}
