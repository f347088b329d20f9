// Clinics and their clinicians, made per request from the caller's tenant scope.
// Administrative data, not clinical content: no audit rows (the visits they carry are audited).
import { TRPCError } from '@trpc/server';
import { params } from '../db/index.ts';
import { FieldErrors } from '../server/index.ts';
import type { TenantScope } from '../server/index.ts';
import type { CreatePoliInput, Poli, Staff, UpdatePoliInput } from './schema.ts';

type Row = Record<string, unknown>;

const SELECT_POLI = 'p.id::text as id, p.kode, p.nama, p.active, p.version, p.created_at, p.updated_at';
const NOT_FOUND = () => new TRPCError({ code: 'NOT_FOUND', message: 'clinic not found' });

const toPoli = (r: Row): Poli => ({
  id: String(r.id),
  kode: String(r.kode),
  nama: String(r.nama),
  active: r.active === true,
  version: Number(r.version),
  createdAt: String(r.created_at),
  updatedAt: String(r.updated_at),
});

const toStaff = (r: Row): Staff => ({
  poliId: String(r.poli_id),
  userId: String(r.user_id),
  assignedAt: String(r.assigned_at),
  assignedBy: String(r.assigned_by),
});

export function poliStore({ db, actor }: TenantScope) {
  return {
    async listPoli(includeInactive: boolean): Promise<Poli[]> {
      const sql = `select ${SELECT_POLI} from records.poli p ${includeInactive ? '' : 'where p.active'} order by p.nama, p.id`;
      return (await db.one<Row>(sql)).map(toPoli);
    },

    async createPoli(input: CreatePoliInput): Promise<Poli> {
      const sql = `insert into records.poli as p (kode, nama, created_by, updated_by) values ($1, $2, $3, $3) returning ${SELECT_POLI}`;
      return toPoli((await db.one<Row>(sql, [input.kode, input.nama.normalize('NFC'), actor.userId]))[0]!);
    },

    async updatePoli(input: UpdatePoliInput): Promise<Poli> {
      const { values, p } = params();
      const sets = ['version = p.version + 1', 'updated_at = now()', `updated_by = ${p(actor.userId)}`];
      if (input.nama !== undefined) sets.push(`nama = ${p(input.nama.normalize('NFC'))}`);
      if (input.active !== undefined) sets.push(`active = ${p(input.active)}`);
      const versioned = input.expectedVersion === undefined ? '' : ` and p.version = ${p(input.expectedVersion)}`;
      const sql = `update records.poli p set ${sets.join(', ')} where p.id = ${p(input.id)}::uuid${versioned} returning ${SELECT_POLI}`;
      const rows = await db.one<Row>(sql, values, { prepare: false });
      if (rows[0]) return toPoli(rows[0]);
      const current = await db.one<{ version: number }>('select version from records.poli where id = $1::uuid', [input.id]);
      if (!current[0]) throw NOT_FOUND();
      const message = `clinic was changed meanwhile (version ${current[0].version}, expected ${String(input.expectedVersion)})`;
      throw new TRPCError({ code: 'CONFLICT', message, cause: new FieldErrors({ expectedVersion: [message] }) });
    },

    async assign(poliId: string, userId: string): Promise<Staff> {
      const sql = `with poli as (select id from records.poli where id = $1::uuid)
        insert into records.poli_staff as s (poli_id, user_id, assigned_by) select poli.id, $2, $3 from poli
        on conflict (tenant_id, poli_id, user_id) do update set active = true, assigned_at = now(), assigned_by = excluded.assigned_by, unassigned_at = null
        returning s.poli_id::text as poli_id, s.user_id, s.assigned_at, s.assigned_by`;
      const rows = await db.one<Row>(sql, [poliId, userId, actor.userId]);
      if (!rows[0]) throw NOT_FOUND();
      return toStaff(rows[0]);
    },

    async unassign(poliId: string, userId: string): Promise<Staff> {
      const sql = `update records.poli_staff s set active = false, unassigned_at = now()
        where s.poli_id = $1::uuid and s.user_id = $2 and s.active
        returning s.poli_id::text as poli_id, s.user_id, s.assigned_at, s.assigned_by`;
      const rows = await db.one<Row>(sql, [poliId, userId]);
      if (!rows[0]) throw new TRPCError({ code: 'NOT_FOUND', message: 'this user is not assigned to this clinic' });
      return toStaff(rows[0]);
    },

    async listStaff(filter: { poliId?: string | undefined; userId?: string | undefined }): Promise<Staff[]> {
      const { values, p } = params();
      const where = ['s.active'];
      if (filter.poliId) where.push(`s.poli_id = ${p(filter.poliId)}::uuid`);
      if (filter.userId) where.push(`s.user_id = ${p(filter.userId)}`);
      const sql = `select s.poli_id::text as poli_id, s.user_id, s.assigned_at, s.assigned_by from records.poli_staff s
        where ${where.join(' and ')} order by s.poli_id, s.user_id`;
      return (await db.one<Row>(sql, values)).map(toStaff);
    },
  };
}
