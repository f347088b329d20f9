// The audit trail: the INSERT every access appends in its own transaction (usually as a CTE of the
// very statement that reads or writes, see pasien/store.ts), and the listing, which leaves a trace
// of its own: whoever reads the trail is in it.
import { params } from '../db/index.ts';
import type { Actor, TenantScope } from '../server/index.ts';
import type { AuditAction, AuditEntry, AuditListInput } from './schema.ts';

type Row = Record<string, unknown>;

/** The audit INSERT as a CTE body for `actor`; `ids` is an SQL expression of type uuid[]. */
export function auditInsertFor(actor: Actor) {
  return (p: (v: unknown) => string, action: AuditAction, ids: string, details: Record<string, unknown>, access?: AccessFlags) =>
    `insert into records.audit_log (actor_user_id, actor_role, client_id, action, pasien_ids, request_id, trace_id, details, break_glass, purpose)
     select ${p(actor.userId)}, ${p(actor.role)}, ${p(actor.clientId ?? null)}, ${p(action)}, ${ids}, ${p(actor.requestId || null)}, ${p(actor.traceId ?? null)}, ${p(JSON.stringify(actor.tool ? { ...details, tool: actor.tool } : details))}::jsonb,
            ${access?.breakGlass ?? p(actor.breakGlass === true)}, ${access?.purpose ?? p(actor.purpose ?? null)}`;
}

/** The audit row's break-the-glass flag and purpose as SQL expressions, for a statement that checks need-to-know itself. */
export interface AccessFlags {
  breakGlass: string;
  purpose: string;
}

/** The filters a listing used, by name only: the audit row's details never carry the searched values. */
export const usedFilters = (input: Record<string, unknown>, keys: string[]) => keys.filter((k) => input[k] !== undefined);

export function auditStore({ db, actor, cursors }: TenantScope) {
  const auditInsert = auditInsertFor(actor);
  return {
    async listAudit(input: AuditListInput): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
      const { values, p } = params();
      const where: string[] = [];
      if (input.action) where.push(`a.action = ${p(input.action)}`);
      if (input.breakGlass !== undefined) where.push(`a.break_glass = ${p(input.breakGlass)}`);
      // An agent's access names the MCP tool it called (auditInsertFor).
      if (input.agent !== undefined) where.push(`${input.agent ? '' : 'not '}(a.details ? 'tool')`);
      if (input.actorUserId) where.push(`a.actor_user_id = ${p(input.actorUserId)}`);
      if (input.pasienId) where.push(`a.pasien_ids @> array[${p(input.pasienId)}::uuid]`);
      if (input.from) where.push(`a.occurred_at >= ${p(input.from)}::timestamptz`);
      if (input.to) where.push(`a.occurred_at < ${p(input.to)}::timestamptz`);
      if (input.cursor) where.push(`a.id < ${p(Number(cursors.open(input.cursor, 'audit', db.tenantId)[0]))}`);
      const limit = p(input.limit);
      const details = { filters: usedFilters(input, ['action', 'breakGlass', 'agent', 'actorUserId', 'pasienId', 'from', 'to', 'cursor']) };
      const sql = `with page as (
          select a.id, a.occurred_at, a.actor_user_id, a.actor_role, a.client_id, a.action, a.pasien_ids::text[] as pasien_ids,
                 a.request_id, a.trace_id, a.details, a.break_glass, a.purpose
          from records.audit_log a ${where.length ? `where ${where.join(' and ')}` : ''} order by a.id desc limit ${limit} + 1),
        audit as (${auditInsert(p, 'audit.list', "'{}'::uuid[]", details)})
        select * from page order by id desc`;
      const rows = await db.one<Row>(sql, values);
      const more = rows.length > input.limit;
      const items = rows.slice(0, input.limit).map((r) => ({
        id: Number(r.id),
        occurredAt: r.occurred_at instanceof Date ? r.occurred_at.toISOString() : String(r.occurred_at),
        actorUserId: String(r.actor_user_id),
        actorRole: String(r.actor_role),
        clientId: (r.client_id as string | null) ?? null,
        action: String(r.action),
        pasienIds: r.pasien_ids as string[],
        requestId: (r.request_id as string | null) ?? null,
        traceId: (r.trace_id as string | null) ?? null,
        details: r.details as Record<string, unknown>,
        breakGlass: r.break_glass === true,
        purpose: (r.purpose as string | null) ?? null,
      }));
      const last = items[items.length - 1];
      return { items, nextCursor: more && last ? cursors.seal('audit', db.tenantId, [last.id]) : null };
    },
  };
}
