// A visit's way from planned to finished (or cancelled): which transitions exist, the rule that guards
// finishing, and the write, which appends the transition to the status history (never updated in
// place) with its audit row in the same transaction.
import { TRPCError } from '@trpc/server';
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { Querier } from '../db/index.ts';
import { FieldErrors } from '../server/index.ts';
import type { TenantScope } from '../server/index.ts';
import { FROM_KUNJUNGAN, SELECT_KUNJUNGAN, toKunjungan } from './rows.ts';
import type { Row } from './rows.ts';
import type { Kunjungan, Status } from './schema.ts';
import { VISIT_NOT_FOUND } from './store.ts';

export type Transition = 'arrive' | 'start' | 'finish' | 'cancel';

/** Each transition: the status it leads to and the statuses it may leave. */
const TRANSITIONS = new Map<Transition, { to: Status; from: readonly Status[] }>([
  ['arrive', { to: 'arrived', from: ['planned'] }],
  ['start', { to: 'in-progress', from: ['arrived'] }],
  ['finish', { to: 'finished', from: ['in-progress'] }],
  ['cancel', { to: 'cancelled', from: ['planned', 'arrived'] }],
]);

/** A visit is finished only with a primary diagnosis in force (SATUSEHAT refuses an Encounter without one). */
export async function requirePrimaryDiagnosis(q: Querier, kunjunganId: string): Promise<void> {
  const [primary] = await q.query(
    "select 1 from records.klinis where kunjungan_id = $1::uuid and jenis = 'diagnosis' and peran = 'primary' and not entered_in_error",
    [kunjunganId],
  );
  if (!primary) throw new TRPCError({ code: 'CONFLICT', message: 'a primary diagnosis is required to finish a visit: record one first' });
}

export function transitionStore({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor(actor);
  return {
    async transition(kind: Transition, id: string, expectedVersion: number | undefined, reason?: string): Promise<Kunjungan> {
      const rule = TRANSITIONS.get(kind)!;
      return db.tx(async (q) => {
        const [current] = await q.query<{ status: Status; version: number; pasien_id: string }>(
          'select status, version, pasien_id::text as pasien_id from records.kunjungan where id = $1::uuid for update',
          [id],
        );
        if (!current) throw VISIT_NOT_FOUND();
        if (expectedVersion !== undefined && expectedVersion !== current.version) {
          const message = `visit was changed meanwhile (version ${current.version}, expected ${expectedVersion})`;
          throw new TRPCError({ code: 'CONFLICT', message, cause: new FieldErrors({ expectedVersion: [message] }) });
        }
        if (!rule.from.includes(current.status)) {
          throw new TRPCError({ code: 'CONFLICT', message: `a ${current.status} visit cannot become ${rule.to}` });
        }
        if (kind === 'finish') await requirePrimaryDiagnosis(q, id);
        const { values, p } = params();
        const stamp = kind === 'start' ? ', started_at = now()' : kind === 'finish' || kind === 'cancel' ? ', ended_at = now()' : '';
        const cancel = kind === 'cancel' ? `, cancel_reason = ${p(reason!.normalize('NFC'))}` : '';
        const sql = `with k as (
            update records.kunjungan k set status = ${p(rule.to)}, version = k.version + 1, updated_at = now(), updated_by = ${p(actor.userId)}${stamp}${cancel}
            where k.id = ${p(id)}::uuid returning k.id, k.pasien_id),
          s as (insert into records.kunjungan_status (kunjungan_id, status, actor_user_id, actor_role, reason)
            select k.id, ${p(rule.to)}, ${p(actor.userId)}, ${p(actor.role)}, ${p(reason ?? null)} from k),
          audit as (${auditInsert(p, `kunjungan.${kind}`, 'array[k.pasien_id]', { kunjunganId: id, from: current.status, to: rule.to })} from k)
          select 1`;
        await q.query(sql, values);
        const rows = await q.query<Row>(`select ${SELECT_KUNJUNGAN} from ${FROM_KUNJUNGAN} where k.id = $1::uuid`, [id]);
        return toKunjungan(rows[0]!);
      });
    },
  };
}
