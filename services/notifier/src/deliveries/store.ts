// The durable message store (Postgres table `deliveries`, see migrations/001_deliveries.sql). Every
// state change is one statement, guarded by the lease token where it matters, so two replicas can
// never both hold a message and a stale worker can never overwrite a newer outcome.
import { randomUUID } from 'node:crypto';
import type { Pool } from '@simrs/platform/db';
import { maskAddress } from '../mail/index.ts';
import type { Locale, TemplateName } from '../mail/index.ts';
import type { ValidMessage } from './validation.ts';

export type State = 'queued' | 'sending' | 'sent' | 'dead';

export interface Delivery {
  id: string;
  idempotency_key: string;
  state: State;
  template: TemplateName;
  locale: Locale;
  recipient: string;
  parameters: Record<string, string>;
  message_id: string;
  attempts: number;
  next_attempt_at: Date | null;
  lease_token: string | null;
  last_error: string | null;
  valid_until: Date | null;
  traceparent: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
}

/** A leased message; `resumed` when its previous attempt's worker was lost mid-send (outcome unknown). */
export interface Claimed extends Delivery {
  resumed: boolean;
}

export interface Enqueued {
  id: string;
  state: State;
  created: boolean;
}

/**
 * Stores a message unless its idempotency key is known. Two concurrent calls with one key (two
 * replicas) both end here: the unique index lets one insert win, the other waits for it and then
 * reads the winner's row.
 */
export async function enqueue(pool: Pool, msg: ValidMessage, messageIdDomain: string, traceparent: string | null): Promise<Enqueued> {
  const id = randomUUID();
  const inserted = await pool.query<{ id: string; state: State }>(
    `insert into deliveries (id, idempotency_key, template, locale, recipient, parameters, message_id, valid_until, traceparent)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (idempotency_key) do nothing
     returning id, state`,
    [
      id,
      msg.idempotencyKey,
      msg.template,
      msg.locale,
      msg.recipient,
      msg.parameters,
      `<${id}@${messageIdDomain}>`,
      msg.validUntil,
      traceparent,
    ],
  );
  if (inserted.rows[0]) return { ...inserted.rows[0], created: true };
  const existing = await pool.query<{ id: string; state: State }>('select id, state from deliveries where idempotency_key = $1', [
    msg.idempotencyKey,
  ]);
  const row = existing.rows[0];
  if (!row) throw new Error('idempotency key conflicted but no row was found');
  return { ...row, created: false };
}

export async function findDelivery(pool: Pool, by: { id: string } | { idempotencyKey: string }): Promise<Delivery | undefined> {
  const { rows } =
    'id' in by
      ? await pool.query<Delivery>('select * from deliveries where id = $1', [by.id])
      : await pool.query<Delivery>('select * from deliveries where idempotency_key = $1', [by.idempotencyKey]);
  return rows[0];
}

/**
 * Leases up to `limit` due messages: queued ones whose retry time has come and sending ones whose
 * lease ran out (their worker died). SKIP LOCKED lets replicas claim side by side without waiting
 * on each other or taking the same row; the attempt is counted here, before the send, so a message
 * that crashes its worker still runs out of attempts. A row taken over from a lost worker is marked
 * `resumed`: that worker may have died after the peer's 250 (see worker.ts). `skip` names rows the
 * caller is still handling itself, and `takeOver: false` leaves every run-out lease alone for now.
 */
export async function claim(
  pool: Pool,
  limit: number,
  leaseMs: number,
  { skip = [], takeOver = true }: { skip?: string[]; takeOver?: boolean } = {},
): Promise<Claimed[]> {
  const { rows } = await pool.query<Claimed>(
    `with due as (
       select id, state = 'sending' as resumed from deliveries
       where state in ('queued', 'sending') and next_attempt_at <= now()
         and (state = 'queued' or $3) and id <> all($4::uuid[])
       order by next_attempt_at
       limit $1
       for update skip locked
     )
     update deliveries d
        set state = 'sending', attempts = d.attempts + 1, lease_token = gen_random_uuid(),
            next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), updated_at = now()
       from due where d.id = due.id
     returning d.*, due.resumed`,
    [limit, leaseMs, takeOver, skip],
  );
  return rows;
}

/**
 * Records the SMTP peer's acceptance. Deliberately not guarded by the lease token: once a 250 came
 * back the mail is out, and a late "sent" must win over anything a second holder would write.
 */
export async function markSent(pool: Pool, d: Pick<Delivery, 'id' | 'recipient'>): Promise<void> {
  await pool.query(
    `update deliveries
        set state = 'sent', sent_at = now(), updated_at = now(), next_attempt_at = null, lease_token = null,
            last_error = null, parameters = '{}'::jsonb, recipient = $2
      where id = $1 and state <> 'sent'`,
    [d.id, maskAddress(d.recipient)],
  );
}

/** Puts a message back in the queue after a transient failure; false when the lease was lost. */
export async function markRetry(pool: Pool, d: Pick<Delivery, 'id' | 'lease_token'>, delayMs: number, error: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `update deliveries
        set state = 'queued', next_attempt_at = now() + make_interval(secs => $3::double precision / 1000),
            lease_token = null, last_error = $4, updated_at = now()
      where id = $1 and lease_token = $2 and state = 'sending'`,
    [d.id, d.lease_token, delayMs, error],
  );
  return rowCount === 1;
}

/** Extends a held lease (its worker is alive, its send still running). False when it was lost. */
export async function renewLease(pool: Pool, d: Pick<Delivery, 'id' | 'lease_token'>, leaseMs: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    `update deliveries set next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
      where id = $1 and lease_token = $2 and state = 'sending'`,
    [d.id, d.lease_token, leaseMs],
  );
  return rowCount === 1;
}

/** Dead-letters a message: never tried again. False when the lease was lost. */
export async function markDead(pool: Pool, d: Pick<Delivery, 'id' | 'lease_token' | 'recipient'>, error: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `update deliveries
        set state = 'dead', next_attempt_at = null, lease_token = null, last_error = $3, updated_at = now(),
            parameters = '{}'::jsonb, recipient = $4
      where id = $1 and lease_token = $2 and state = 'sending'`,
    [d.id, d.lease_token, error, maskAddress(d.recipient)],
  );
  return rowCount === 1;
}

export interface StoreStats {
  /** Messages per state, except 'sent' (which only grows). */
  byState: Record<Exclude<State, 'sent'>, number>;
  /** Age in seconds of the oldest message not yet sent or dead (0 when none). */
  oldestOpenSeconds: number;
}

export async function stats(pool: Pool): Promise<StoreStats> {
  const [counts, oldest] = await Promise.all([
    pool.query<{ state: State; n: number }>(`select state, count(*)::int as n from deliveries where state <> 'sent' group by state`),
    pool.query<{ age: number }>(
      `select coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as age from deliveries where state in ('queued', 'sending')`,
    ),
  ]);
  const byState = { queued: 0, sending: 0, dead: 0 };
  for (const row of counts.rows) if (row.state !== 'sent') byState[row.state] = row.n;
  return { byState, oldestOpenSeconds: oldest.rows[0]?.age ?? 0 };
}

/** Deletes finished messages older than the retention period, a batch at a time. */
export async function purge(pool: Pool, retentionDays: number, batch = 1_000): Promise<number> {
  const { rowCount } = await pool.query(
    `delete from deliveries where id in (
       select id from deliveries
       where state in ('sent', 'dead') and updated_at < now() - make_interval(days => $1)
       limit $2)`,
    [retentionDays, batch],
  );
  return rowCount ?? 0;
}
