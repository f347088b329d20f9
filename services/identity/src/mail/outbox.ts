// The transactional outbox between identity and the notifier. `put` stores a mail (sealed) in identity's
// database and resolves only once the row is committed, so a request that caused a mail is answered
// after the mail is durable; the relay then hands each row to the notifier's SendEmail with the row's
// idempotency key, retrying with backoff for as long as the notifier (or the database) is away, and
// deletes the row once the notifier has acknowledged it.
//
// The guarantee: a mail whose request was answered reaches SMTP exactly once. Identity may send a row
// twice (it crashed after the notifier's acknowledgement and before the delete), but the key is the
// same, and the notifier stores one message per key; the notifier itself stores before it acknowledges.
// A request whose mail could not be stored fails (MailNotAccepted) and nothing is sent.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { createClient } from '@simrs/proto/grpc';
import { NotifierService } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import type { SendEmailRequest } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { open, seal } from '../keys/index.ts';

export type OutboxMail = Pick<SendEmailRequest, 'recipient' | 'template' | 'locale' | 'parameters'>;

/** The mail could not be stored (the database is away): the caller answers 503, nothing was sent. */
export class MailNotAccepted extends Error {
  constructor(cause: unknown) {
    super('mail not accepted', { cause });
    this.name = 'MailNotAccepted';
  }
}

export interface Outbox {
  /**
   * Stores `mail` for delivery. `undefined` (an address that gets no mail) runs the same statement and
   * stores nothing, so that both answers take the same time.
   */
  put(purpose: string, mail: OutboxMail | undefined): Promise<void>;
  /** Starts relaying (polling, and at once after each put). */
  start(): void;
  /** Stops relaying after the batch in flight. */
  stop(): Promise<void>;
}

export interface OutboxOptions {
  pool: Pool;
  sealKey: Buffer;
  notifierAddress: string;
  log: Logger;
  pollMs?: number;
  batch?: number;
}

const GRPC_INVALID_ARGUMENT = 3;
const MAX_BACKOFF_MS = 4_000;
const backoffMs = (attempts: number) => Math.min(MAX_BACKOFF_MS, 100 * 2 ** Math.min(attempts, 10)) * (0.75 + Math.random() / 2);

export const idempotencyKey = (purpose: string, id: string) => `identity:${purpose}:${id}`;

interface OutboxRow {
  id: string;
  purpose: string;
  sealed: string;
  attempts: number;
}

const notifierClient = (address: string) => createClient(NotifierService, address);

/** What relaying needs: the table, the key rows are sealed with, the notifier and the batch size. */
interface Relay {
  pool: Pool;
  sealKey: Buffer;
  log: Logger;
  notifier: ReturnType<typeof notifierClient>;
  batch: number;
}

/** The notifier is away: the row and every row after it in this batch wait, with a growing back-off. */
async function postpone(client: PoolClient, pending: string[], attempts: number, err: unknown): Promise<void> {
  await client.query(
    `update mail_outbox set attempts = attempts + 1, last_error = $2,
       next_attempt_at = now() + make_interval(secs => $3) where id = any($1::uuid[])`,
    [pending, String((err as Error).message).slice(0, 200), backoffMs(attempts) / 1000],
  );
}

/**
 * Hands one row to the notifier and deletes it; drops a row that cannot be opened or that the notifier
 * refuses. 'relayed', 'dropped', or 'wait' when the notifier is away (the rest of the batch postponed).
 */
async function relayRow(r: Relay, client: PoolClient, row: OutboxRow, waiting: () => string[]): Promise<'relayed' | 'dropped' | 'wait'> {
  const { log } = r;
  const plain = open(r.sealKey, row.sealed, row.id);
  if (plain === undefined) {
    log.error({ outboxId: row.id }, 'outbox row does not open (AUTH_SECRET changed?): dropped');
    await client.query('delete from mail_outbox where id = $1', [row.id]);
    return 'dropped';
  }
  const mail = JSON.parse(plain) as OutboxMail;
  try {
    const res = await r.notifier.sendEmail({ ...mail, idempotencyKey: idempotencyKey(row.purpose, row.id) }, { timeoutMs: 5_000 });
    await client.query('delete from mail_outbox where id = $1', [row.id]);
    log.info(
      { purpose: row.purpose, outboxId: row.id, deliveryId: res.deliveryId, attempts: row.attempts + 1 },
      'mail handed to the notifier',
    );
    return 'relayed';
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === GRPC_INVALID_ARGUMENT) {
      // The notifier will never take it; retrying would only block the queue.
      log.error({ purpose: row.purpose, outboxId: row.id, err: (err as Error).message }, 'mail refused by the notifier: dropped');
      await client.query('delete from mail_outbox where id = $1', [row.id]);
      return 'dropped';
    }
    log.warn(
      { purpose: row.purpose, outboxId: row.id, attempts: row.attempts + 1, err: (err as Error).message },
      'mail not handed over yet',
    );
    await postpone(client, waiting(), row.attempts, err);
    return 'wait';
  }
}

/** Relays one batch of due rows in one transaction; how many reached the notifier. */
async function relayBatch(r: Relay): Promise<number> {
  const client = await r.pool.connect();
  let relayed = 0;
  try {
    await client.query('begin');
    // SKIP LOCKED: replicas relay disjoint rows; a row locked by a crashed replica comes back.
    const { rows } = await client.query<OutboxRow>(
      `select id, purpose, sealed, attempts from mail_outbox where next_attempt_at <= now()
       order by next_attempt_at limit $1 for update skip locked`,
      [r.batch],
    );
    for (const [i, row] of rows.entries()) {
      const outcome = await relayRow(r, client, row, () => rows.slice(i).map((p) => p.id));
      if (outcome === 'relayed') relayed++;
      if (outcome === 'wait') break;
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  return relayed;
}

export function createOutbox(options: OutboxOptions): Outbox {
  const { pool, sealKey, log } = options;
  const pollMs = options.pollMs ?? 1_000;
  const batch = options.batch ?? 50;
  const notifier = notifierClient(options.notifierAddress);
  const r: Relay = { pool, sealKey, log, notifier, batch };
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  /**
   * Which context each round runs in (and so which trace its spans join): a round a put asked for runs in
   * that put's, a poll in the one the outbox was made in (no request's). Without this, a round asked for
   * while another was in flight ran in that one's context, and every later poll in the first kicker's.
   */
  const inCreator = AsyncLocalStorage.snapshot();
  let again: (<R>(fn: () => R) => R) | undefined;

  async function relay(): Promise<void> {
    timer = undefined;
    try {
      // A full batch means more may be due: go on at once.
      while (running && (await relayBatch(r)) >= batch);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'outbox relay: database unavailable');
    }
    if (running && again) {
      const inKicker = again;
      again = undefined;
      return inKicker(relay);
    }
    if (running) timer = setTimeout(() => inCreator(kick), pollMs);
  }

  function kick(): void {
    if (!running) return;
    if (timer === undefined) {
      // A relay is in flight: go round once more when it ends, in the context of the first put that asked.
      again ??= AsyncLocalStorage.snapshot();
      return;
    }
    clearTimeout(timer);
    inFlight = relay();
  }

  return {
    async put(purpose, mail) {
      const id = randomUUID();
      const sealed = seal(sealKey, JSON.stringify(mail ?? {}), id);
      try {
        await pool.query('insert into mail_outbox (id, purpose, sealed) select $1, $2, $3 where $4::boolean', [
          id,
          purpose,
          sealed,
          mail !== undefined,
        ]);
      } catch (err) {
        throw new MailNotAccepted(err);
      }
      if (mail) kick();
    },
    start() {
      if (running) return;
      running = true;
      inFlight = relay();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      await inFlight;
      notifier.close();
    },
  };
}
