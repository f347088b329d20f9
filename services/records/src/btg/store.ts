// Break-the-glass grants: opened by a clinician for a patient with a written reason, valid for the
// hospital's btgMinutes, never changed; each opening and each listing is audited (the opening flagged).
import { TRPCError } from '@trpc/server';
import { auditInsertFor, usedFilters } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import type { Grant, ListInput, OpenInput } from './schema.ts';

type Row = Record<string, unknown>;

const SELECT_GRANT = `g.id::text as id, g.user_id, g.user_role, g.pasien_id::text as pasien_id, g.reason, g.opened_at, g.expires_at,
  g.expires_at > now() as active`;

const toGrant = (r: Row): Grant => ({
  id: String(r.id),
  userId: String(r.user_id),
  userRole: String(r.user_role),
  pasienId: String(r.pasien_id),
  reason: String(r.reason),
  openedAt: String(r.opened_at),
  expiresAt: String(r.expires_at),
  active: r.active === true,
});

export function btgStore({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor({ ...actor, breakGlass: true, purpose: 'break-the-glass' });
  const auditList = auditInsertFor(actor);
  return {
    async open(input: OpenInput): Promise<Grant> {
      const { values, p } = params();
      const reason = input.reason.normalize('NFC');
      const sql = `with g as (
          insert into records.btg_grant as g (user_id, user_role, pasien_id, reason, expires_at)
          select ${p(actor.userId)}, ${p(actor.role)}, ps.id, ${p(reason)}, now() + make_interval(mins => records.setting_btg_minutes())
          from records.pasien ps where ps.id = ${p(input.pasienId)}::uuid
          returning ${SELECT_GRANT}),
        audit as (${auditInsert(p, 'btg.open', 'array[g.pasien_id::uuid]', { reason })} from g)
        select * from g`;
      const rows = await db.one<Row>(sql, values);
      if (!rows[0]) throw new TRPCError({ code: 'NOT_FOUND', message: 'patient not found' });
      return toGrant(rows[0]);
    },

    async list(input: ListInput): Promise<Grant[]> {
      const { values, p } = params();
      const where: string[] = ['true'];
      if (input.userId) where.push(`g.user_id = ${p(input.userId)}`);
      if (input.pasienId) where.push(`g.pasien_id = ${p(input.pasienId)}::uuid`);
      const sql = `with page as (select ${SELECT_GRANT} from records.btg_grant g where ${where.join(' and ')}
          order by g.opened_at desc, g.id limit ${p(input.limit)}),
        audit as (${auditList(p, 'btg.list', "'{}'::uuid[]", { filters: usedFilters(input, ['userId', 'pasienId']) })})
        select * from page`;
      return (await db.one<Row>(sql, values)).map(toGrant);
    },
  };
}
