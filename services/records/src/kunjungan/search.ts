// The visit search FHIR's Encounter search runs: by patient, status and day, newest first, at most
// `limit`, with its audit row in the same statement (the patients on the page).
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import { FROM_KUNJUNGAN, SELECT_KUNJUNGAN, toKunjungan } from './rows.ts';
import type { Row } from './rows.ts';
import type { Kunjungan, Status } from './schema.ts';

/** A day bound: `k.tanggal <op> date`. */
export interface DayBound {
  op: '=' | '<>' | '<' | '<=' | '>' | '>=';
  date: string;
}

export interface VisitQuery {
  /** Every listed set ANDs; within one, values OR. */
  pasienIds: string[][];
  statuses: Status[][];
  days: DayBound[][];
  ids: string[][];
  limit: number;
  audit: Record<string, unknown>;
}

const OPS = new Set(['=', '<>', '<', '<=', '>', '>=']);

export function visitSearch({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor(actor);
  return {
    async search(query: VisitQuery): Promise<{ items: Kunjungan[]; more: boolean }> {
      const { values, p } = params();
      const where: string[] = ['true'];
      for (const set of query.pasienIds) where.push(`k.pasien_id = any(${p(set)}::uuid[])`);
      for (const set of query.ids) where.push(`k.id = any(${p(set)}::uuid[])`);
      for (const set of query.statuses) where.push(`k.status = any(${p(set)}::text[])`);
      for (const set of query.days) {
        const ors = set.filter((b) => OPS.has(b.op)).map((b) => `k.tanggal ${b.op} ${p(b.date)}::date`);
        if (ors.length) where.push(`(${ors.join(' or ')})`);
      }
      const sql = `with page as (select ${SELECT_KUNJUNGAN}, k.pasien_id as pid from ${FROM_KUNJUNGAN}
          where ${where.join(' and ')} order by k.tanggal desc, k.created_at desc, k.id limit ${p(query.limit)} + 1),
        shown as (select pid from page limit ${p(query.limit)}),
        audit as (${auditInsert(p, 'kunjungan.list', "coalesce((select array_agg(distinct pid) from shown), '{}')", query.audit)})
        select * from page`;
      const rows = await db.one<Row>(sql, values, { prepare: false });
      return { items: rows.slice(0, query.limit).map(toKunjungan), more: rows.length > query.limit };
    },
  };
}
