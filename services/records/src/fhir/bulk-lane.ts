// One lane of an export job: its share of each type's ids (a range of them, drawn when the type
// began: beginTypes), written page by page from the lane's cursor. Each page is read, then stored as
// the type's next chunk with the lane's cursor advanced, in one statement that matches only while the
// job runs and the lane's cursor is where the page was read from (cancelled, or taken over: stop). So
// a lane that dies mid-page leaves the page undone and whoever takes the lapsed lease writes it once.
// Lanes of one job run on threads of their own (bulk-lane-thread.ts): a type's lines are mapped on as
// many cores as it has lanes.
import type { Querier, TenantDb } from '../db/index.ts';
import type { ExportType } from './bulk-params.ts';
import type { ExportJob, LaneCursor, TypeProgress } from './bulk-jobs.ts';
import { laneRanges, NdjsonBuffer, readPage } from './bulk-sources.ts';
import type { Page } from './bulk-sources.ts';
import type { MappingContext } from './clinical-mapping.ts';

/** What a lane's thread is given: its job, which lane of how many, and how to write pages. */
export interface LaneTask {
  job: ExportJob;
  tenantId: string;
  ctx: MappingContext;
  lane: number;
  pageSize: number;
  leaseSeconds: number;
}

/** How a lane ended: every type's share written, stopped (asked to, cancelled or taken over), or failed. */
export type LaneResult = { complete: boolean } | { error: string; unavailable: boolean };

/**
 * Advances lane `lane` of `type` past a page read from `from` and stores the page as the type's next
 * chunk, as one statement (one round trip with its transaction: the lane is meanwhile busy mapping
 * the next page, and every round trip waits for it). records.export_step (migration
 * 011_export_lanes.sql) counts the type's lines and chunks and sets the lane's cursor; lanes of one
 * type committing at once queue on the job's row, each then matched against the row as the other
 * left it. The chunk's insert reads the update's row (its new seq), so it happens only with it. The
 * commit does not wait for its WAL flush: a crash that loses the last pages loses each chunk with its
 * cursor, and the lane writes them again from the cursor.
 */
const COMMIT_PAGE = `with advanced as (
    update records.export_job
       set progress = jsonb_set(progress, array[$2::text], records.export_step(progress -> $2::text, $3::int, $4::jsonb, $5::int)),
           lease_until = now() + make_interval(secs => $6::int)
     where id = $1::uuid and status = 'running'
       and (progress -> $2::text -> 'lanes' -> $3::int ->> 'after') is not distinct from $7::text
       and not (progress -> $2::text -> 'lanes' -> $3::int ->> 'done')::boolean
    returning id, (progress -> $2::text ->> 'seq')::int as seq
  ), chunk as (
    insert into records.export_chunk (job_id, type, seq, lines, body)
    select id, $2::text, seq, $5::int, $8::text from advanced where $5::int > 0
  )
  select count(*)::int as advanced, set_config('synchronous_commit', 'off', true) as commit_mode from advanced`;

interface Lane {
  db: TenantDb;
  task: LaneTask;
  type: ExportType;
  /** Two buffers the pages alternate in: one being committed, one being read. */
  buffers: [NdjsonBuffer, NdjsonBuffer];
}

/** The lane's cursor after committing `page` (read from `from`), or undefined when the job is no longer this lane's. */
async function commitPage(lane: Lane, from: LaneCursor, page: Page): Promise<LaneCursor | undefined> {
  const after = page.last ?? from.after;
  const next: LaneCursor = { ...from, ...(after ? { after } : {}), done: page.lines < lane.task.pageSize };
  const { job, leaseSeconds } = lane.task;
  const [row] = await lane.db.one<{ advanced: number }>(COMMIT_PAGE, [
    job.id,
    lane.type,
    lane.task.lane,
    JSON.stringify(next),
    page.lines,
    leaseSeconds,
    from.after ?? null,
    // A Buffer goes to Postgres as the text's bytes (binary format), not copied into a string first.
    page.body,
  ]);
  return row?.advanced === 1 ? next : undefined;
}

/**
 * Writes the lane's share of one type from `start` to its end; false when it stopped first. The next
 * page is read (in its own transaction) while the last one commits, so the lane maps rows while
 * Postgres compresses and writes the chunk before them.
 */
async function writeLane(lane: Lane, start: LaneCursor, stopping: () => boolean): Promise<boolean> {
  const { job, ctx, pageSize } = lane.task;
  let turn = 0;
  const read = (after: string | undefined) => {
    const range = { ...(start.from ? { from: start.from } : {}), ...(start.to ? { to: start.to } : {}) };
    const query = { after, since: job.since ?? undefined, patientId: job.patientId ?? undefined, limit: pageSize, range };
    // The buffer is chosen once per page, outside the transaction: a read that db.tx sends again
    // (Postgres unavailable) must not take the other buffer, which holds the page being committed.
    const out = lane.buffers[turn++ % 2]!;
    const reading = lane.db.tx((q) => readPage(q, lane.type, query, ctx, out));
    reading.catch(() => {}); // awaited below; a failure before then is not unhandled
    return reading;
  };
  let cursor = start;
  let next = read(cursor.after);
  try {
    while (!cursor.done) {
      const page = await next;
      if (page.lines === pageSize && !stopping()) next = read(page.last);
      const committed = await commitPage(lane, cursor, page);
      if (!committed) return false;
      cursor = committed;
      if (stopping() && !cursor.done) return false; // the lease lapses; this replica or another resumes at the cursor
    }
    return true;
  } finally {
    await next.catch(() => {});
  }
}

/** The lane's share of every type of the job (begun: beginTypes), type after type; false when it stopped first. */
export async function writeLaneOfJob(db: TenantDb, task: LaneTask, stopping: () => boolean): Promise<boolean> {
  const buffers: [NdjsonBuffer, NdjsonBuffer] = [new NdjsonBuffer(), new NdjsonBuffer()];
  for (const type of task.job.types) {
    const progress = task.job.progress[type];
    const start = progress?.lanes[task.lane];
    if (!start || start.done) continue; // a type with fewer lanes has no share for this one
    if (stopping() || !(await writeLane({ db, task, type, buffers }, start, stopping))) return false;
  }
  return true;
}

/**
 * The job's types not yet begun, begun: each with its lanes' ranges (laneRanges: up to `lanes`, fewer
 * for few rows), and a type begun before lanes given its cursor as its one lane, stored before any lane starts, so that whichever replica resumes the job writes the
 * same ranges; the lease is renewed with them (sampling and starting the threads come before the first
 * page's commit renews it). The job as it now stands, or undefined when it no longer runs.
 */
export async function beginTypes(
  q: Querier,
  job: ExportJob,
  opts: { lanes: number; pageSize: number; leaseSeconds: number },
): Promise<ExportJob | undefined> {
  const begun: Partial<Record<ExportType, TypeProgress>> = {};
  const page = { since: job.since ?? undefined, patientId: job.patientId ?? undefined, limit: opts.pageSize };
  for (const type of job.types.filter((t) => !job.progress[t])) {
    const ranges = await laneRanges(q, type, page, opts.lanes);
    begun[type] = { count: 0, seq: 0, done: false, lanes: ranges.map((range) => ({ ...range, done: false })) };
  }
  const [row] = await q.query<{ progress: ExportJob['progress'] }>(
    `update records.export_job set progress = $2::jsonb || records.export_with_lanes(progress), lease_until = now() + make_interval(secs => $3::int)
      where id = $1::uuid and status = 'running' returning progress`,
    [job.id, JSON.stringify(begun), opts.leaseSeconds],
  );
  return row ? { ...job, progress: row.progress } : undefined;
}
