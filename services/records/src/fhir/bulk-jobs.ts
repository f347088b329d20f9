// Export jobs as the API sees them (records.export_job, migration 009_bulk_export.sql): kick-off, status, the files'
// chunks, cancellation. Every statement runs under the caller's tenant (row-level security), and a job
// is found only by the client that started it: another client of the same hospital, or any caller of
// another hospital, gets the 404 an unknown job gets. Kick-off and each download append their audit row
// in the same statement.
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import type { ExportType } from './bulk-params.ts';

/**
 * One lane of a type: its share of the ids, from `from` (inclusive) to `to` (exclusive; unset: no
 * bound), and where it stands in it: the last id it wrote.
 */
export interface LaneCursor {
  from?: string;
  to?: string;
  after?: string;
  done: boolean;
}

/**
 * A type's progress (migration 011_export_lanes.sql): its lines and chunks, and its lanes' cursors; done
 * when every lane is. (A type begun before lanes had its one cursor at the top; beginTypes makes it
 * that type's one lane before any lane writes.)
 */
export interface TypeProgress {
  count: number;
  seq: number;
  done: boolean;
  lanes: LaneCursor[];
}

export interface ExportJob {
  id: string;
  clientId: string;
  patientId: string | null;
  types: ExportType[];
  since: string | null;
  requestUrl: string;
  transactionTime: string;
  /** A removed job is never shown: it is past its expiry from the moment it is removed. */
  status: 'running' | 'done' | 'failed' | 'removed';
  progress: Partial<Record<ExportType, TypeProgress>>;
  error: string | null;
  expiresAt: string | null;
}

type Row = Record<string, unknown>;

/** The columns toJob reads, from `records.export_job j`. */
export const JOB_COLUMNS = `j.id::text as id, j.client_id, j.patient_id::text as patient_id, j.types, j.since, j.request_url, j.transaction_time,
  j.status, j.progress, j.error, j.expires_at`;

export function toJob(r: Row): ExportJob {
  return {
    id: String(r.id),
    clientId: String(r.client_id),
    patientId: (r.patient_id as string | null) ?? null,
    types: r.types as ExportType[],
    since: (r.since as string | null) ?? null,
    requestUrl: String(r.request_url),
    transactionTime: String(r.transaction_time),
    status: r.status as ExportJob['status'],
    progress: (r.progress ?? {}) as ExportJob['progress'],
    error: (r.error as string | null) ?? null,
    expiresAt: (r.expires_at as string | null) ?? null,
  };
}

/** A second export of the same hospital while one runs (the unique index on running jobs). */
export class ExportBusy extends Error {}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

export function exportJobs({ db, actor }: TenantScope) {
  const audit = auditInsertFor(actor);
  const owner = actor.clientId ?? actor.userId;
  /** The caller's job, unexpired. */
  const mine = (p: (v: unknown) => string, id: string) =>
    `j.id = ${p(id)}::uuid and j.client_id = ${p(owner)} and (j.expires_at is null or j.expires_at > now())`;
  const uuidLike = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

  return {
    async start(input: { patientId?: string; types: ExportType[]; since?: string; requestUrl: string }): Promise<ExportJob> {
      const { values, p } = params();
      const details = { types: input.types, since: input.since ?? null, level: input.patientId ? 'patient' : 'system' };
      const sql = `with job as (
          insert into records.export_job (client_id, requested_by, patient_id, types, since, request_url)
          values (${p(owner)}, ${p(actor.userId)}, ${p(input.patientId ?? null)}::uuid, ${p(input.types)}::text[], ${p(input.since ?? null)}::timestamptz, ${p(input.requestUrl)})
          returning *),
        audit as (${audit(p, 'bulk.export', input.patientId ? `array[${p(input.patientId)}::uuid]` : "'{}'::uuid[]", details)})
        select ${JOB_COLUMNS} from job j`;
      try {
        // Kicked off by a GET, yet a second insert would be a second job: not sent again blindly.
        return toJob((await db.one<Row>(sql, values, { idempotent: false }))[0]!);
      } catch (err) {
        if (isUniqueViolation(err)) throw new ExportBusy('an export of this hospital is already running');
        throw err;
      }
    },

    /**
     * The job for a status poll, unless it was polled less than `minSeconds` ago (`tooSoon`); the poll
     * itself is remembered either way only when it counts.
     */
    async poll(id: string, minSeconds: number): Promise<{ job?: ExportJob; tooSoon?: boolean }> {
      if (!uuidLike(id)) return {};
      const { values, p } = params();
      const sql = `with found as (select ${JOB_COLUMNS}, j.last_polled_at > now() - make_interval(secs => ${p(minSeconds)}) as too_soon
                     from records.export_job j where ${mine(p, id)}),
        polled as (update records.export_job set last_polled_at = now()
                    where id = (select id::uuid from found where not coalesce(too_soon, false)))
        select * from found`;
      // Sent again after a lost answer, the poll would find itself too soon.
      const row = (await db.one<Row>(sql, values, { idempotent: false }))[0];
      if (!row) return {};
      return row.too_soon === true ? { tooSoon: true } : { job: toJob(row) };
    },

    /**
     * Cancels (running) or removes (finished) the caller's job; false when there is none. It is gone for
     * its client at once (past its expiry) and its lanes stop; its files go in the sweep (bulk-sweep.ts).
     */
    async remove(id: string): Promise<boolean> {
      if (!uuidLike(id)) return false;
      const { values, p } = params();
      const rows = await db.one<Row>(
        `update records.export_job j set status = 'removed', expires_at = now(), lease_until = null where ${mine(p, id)} returning j.id`,
        values,
      );
      return rows.length === 1;
    },

    /** The finished job a file belongs to, with the download's audit row; undefined when not the caller's. */
    async download(id: string, type: ExportType): Promise<ExportJob | undefined> {
      if (!uuidLike(id)) return undefined;
      const { values, p } = params();
      const sql = `with found as (select ${JOB_COLUMNS} from records.export_job j where ${mine(p, id)} and j.status = 'done'
                     and ${p(type)} = any(j.types)),
        audit as (${audit(p, 'bulk.download', "'{}'::uuid[]", { job: id, type })} where exists (select 1 from found))
        select * from found`;
      const row = (await db.one<Row>(sql, values))[0];
      return row ? toJob(row) : undefined;
    },

    /**
     * The chunk after `seq` of a file (one at a time, so a download's memory stays one chunk); undefined
     * at its end, and `removed` once the job has been removed or has expired meanwhile (its chunks are
     * being swept: the rest of the file would have gaps).
     */
    async chunkAfter(id: string, type: ExportType, seq: number): Promise<{ seq: number; body: string } | 'removed' | undefined> {
      const { values, p } = params();
      const rows = await db.one<Row>(
        `select live.ok as live, c.seq, c.body
           from (select exists (select 1 from records.export_job j where ${mine(p, id)} and j.status = 'done') as ok) live
           left join lateral (select seq, body from records.export_chunk where job_id = ${p(id)}::uuid and type = ${p(type)} and seq > ${p(seq)}
                              order by seq limit 1) c on live.ok`,
        values,
      );
      const row = rows[0]!;
      if (row.live !== true) return 'removed';
      return row.seq === null ? undefined : { seq: Number(row.seq), body: String(row.body) };
    },
  };
}
