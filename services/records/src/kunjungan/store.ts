// Visits, made per request from the caller's tenant scope. Every read and write appends its audit row
// in the same transaction (a CTE of the reading statement, or a statement of the writing transaction):
// no access without its trace, no trace of a rolled-back access.
import { TRPCError } from '@trpc/server';
import { auditInsertFor, usedFilters } from '../audit/index.ts';
import { params } from '../db/index.ts';
import { badInput } from '../server/index.ts';
import type { TenantScope } from '../server/index.ts';
import { FROM_KUNJUNGAN, SELECT_KUNJUNGAN, TODAY, toKunjungan } from './rows.ts';
import type { Row } from './rows.ts';
import type { Kunjungan, ListInput, RegisterInput } from './schema.ts';

export const VISIT_NOT_FOUND = () => new TRPCError({ code: 'NOT_FOUND', message: 'visit not found' });

// Numbers come from per-day counter rows, upserted in the registering statement: the row lock orders
// concurrent registrations (the clinic's queue counter first, then the hospital's visit counter, in
// every transaction alike, so they never deadlock), and a rolled-back registration burns no number.
export const REGISTER_SQL = `with d as (select ${TODAY} as tanggal),
  q as (insert into records.kunjungan_counter as c (counter, tanggal, last_value) select 'poli:' || $2, d.tanggal, 1 from d
        on conflict (tenant_id, counter, tanggal) do update set last_value = c.last_value + 1 returning last_value),
  n as (insert into records.kunjungan_counter as c (counter, tanggal, last_value) select 'kunjungan', d.tanggal, 1 from d
        on conflict (tenant_id, counter, tanggal) do update set last_value = c.last_value + 1 returning last_value),
  k as (insert into records.kunjungan (no_kunjungan, pasien_id, poli_id, tanggal, no_antrean, created_by, updated_by)
        select 'RJ-' || to_char(d.tanggal, 'YYYYMMDD') || '-' || lpad(n.last_value::text, greatest(4, length(n.last_value::text)), '0'),
               $1::uuid, $2::uuid, d.tanggal, q.last_value, $3, $3 from d, q, n
        returning id)
  insert into records.kunjungan_status (kunjungan_id, status, actor_user_id, actor_role) select k.id, 'planned', $3, $4 from k
  returning kunjungan_id::text as id`;

export function kunjunganStore({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor(actor);

  return {
    async register(input: RegisterInput): Promise<Kunjungan> {
      return db.tx(async (q) => {
        const [found] = await q.query<{ pasien: string | null; poli: boolean | null }>(
          'select (select status from records.pasien where id = $1::uuid) as pasien, (select active from records.poli where id = $2::uuid) as poli',
          [input.pasienId, input.poliId],
        );
        const problems: Record<string, string[]> = {};
        if (found?.pasien == null) problems.pasienId = ['no such patient in this hospital'];
        else if (found.pasien !== 'active') problems.pasienId = ['the patient is archived'];
        if (found?.poli == null) problems.poliId = ['no such clinic in this hospital'];
        else if (!found.poli) problems.poliId = ['the clinic is inactive'];
        if (Object.keys(problems).length > 0) throw badInput(problems);
        const [created] = await q.query<{ id: string }>(REGISTER_SQL, [input.pasienId, input.poliId, actor.userId, actor.role]);
        const { values, p } = params();
        const details = { kunjunganId: created!.id, poliId: input.poliId };
        await q.query(auditInsert(p, 'kunjungan.register', `array[${p(input.pasienId)}::uuid]`, details), values);
        const rows = await q.query<Row>(`select ${SELECT_KUNJUNGAN} from ${FROM_KUNJUNGAN} where k.id = $1::uuid`, [created!.id]);
        return toKunjungan(rows[0]!);
      });
    },

    /** One visit; `extra` adds to the audit row's details what another surface (FHIR) says of the call. */
    async get(id: string, extra: Record<string, string> = {}): Promise<Kunjungan> {
      const { values, p } = params();
      const sql = `with found as (select ${SELECT_KUNJUNGAN}, k.pasien_id as pid from ${FROM_KUNJUNGAN} where k.id = ${p(id)}::uuid),
        audit as (${auditInsert(p, 'kunjungan.get', 'array[found.pid]', { ...extra, kunjunganId: id })} from found)
        select * from found`;
      const rows = await db.one<Row>(sql, values);
      if (!rows[0]) throw VISIT_NOT_FOUND();
      return toKunjungan(rows[0]);
    },

    /**
     * A clinic's day in queue order (a worklist), a patient's visits newest first, or the day's visits
     * of every clinic; `status` narrows any of them.
     */
    async list(input: ListInput): Promise<Kunjungan[]> {
      return this.select(input, 'kunjungan.list', usedFilters(input, ['poliId', 'pasienId', 'tanggal', 'status']));
    },

    async select(input: ListInput, action: 'kunjungan.list', filters: string[]): Promise<Kunjungan[]> {
      const { values, p } = params();
      const where: string[] = [];
      if (input.poliId) where.push(`k.poli_id = ${p(input.poliId)}::uuid`);
      if (input.pasienId) where.push(`k.pasien_id = ${p(input.pasienId)}::uuid`);
      const byDay = input.tanggal !== undefined || !input.pasienId;
      if (byDay) where.push(`k.tanggal = ${input.tanggal ? `${p(input.tanggal)}::date` : TODAY}`);
      if (input.status) where.push(`k.status = ${p(input.status)}`);
      const order = byDay ? 'k.tanggal, pl.nama, k.no_antrean' : 'k.tanggal desc, k.created_at desc';
      const sql = `with page as (select ${SELECT_KUNJUNGAN}, k.pasien_id as pid from ${FROM_KUNJUNGAN}
          where ${where.join(' and ')} order by ${order} limit ${p(input.limit)}),
        audit as (${auditInsert(p, action, "coalesce((select array_agg(distinct pid) from page), '{}')", { filters })})
        select * from page`;
      return (await db.one<Row>(sql, values)).map(toKunjungan);
    },
  };
}
