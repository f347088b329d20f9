// The delivery worker: leases due messages from the store, renders and sends them, records the
// outcome. Every replica runs one; SELECT ... FOR UPDATE SKIP LOCKED plus a lease token keeps two of
// them from ever holding the same message.
//
// Exactly once, and the one window left: a message is leased (state 'sending', lease expiry in
// next_attempt_at) before the SMTP conversation starts, and marked 'sent' by the very next statement
// after the peer's 250. A worker that dies anywhere before the 250 leaves a lease that runs out, and
// the message is sent by whoever claims it next: no loss, and the peer never had the message, so no
// duplicate. A worker that dies in the few milliseconds between the 250 and that UPDATE cannot be told
// apart from one that died before it: the message is sent again when the lease runs out (at least once
// beats at most once for sign-in mail); its successor counts and logs the take-over
// (`notifier.send.resumed`). SMTP has no way to ask a relay "did you get this?", so this window can be
// made short but not closed (RFC 1047); the fault suite measures it apart from every other duplicate,
// which must not happen at all. The same message also carries the same Message-ID, so mail systems
// (and the test peer) can recognise the repeat.
//
// A worker that is alive keeps its lease for as long as its send and the recording of its outcome run
// (renewed every third of the lease), so a slow peer or a loaded machine never lets a second replica
// send the same message. A database that goes away after the 250 is waited out: the mail is out, so it
// is only ever recorded as sent, retried until the store answers (or the worker stops for good: then
// it is the duplicate above), never put back for a retry. While the store is away no lease can be
// renewed, so leases run out that belong to live workers: a worker never claims a message it is still
// handling itself, and after any of its store calls failed, or when it has just started (perhaps
// during an outage), it takes over run-out leases only once the store has answered it for half a
// lease, time for their live holders to record or renew them.
import { setTimeout as sleep } from 'node:timers/promises';
import { context, propagation, trace, SpanStatusCode, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import type { Pool } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { untraced } from '../db/index.ts';
import { render } from '../mail/index.ts';
import type { OutgoingMail, Send, SendResult } from '../mail/index.ts';
import { backoffMs, classify } from './retry.ts';
import type { RetryPolicy } from './retry.ts';
import { claim, markDead, markRetry, markSent, purge, renewLease } from './store.ts';
import type { Claimed, Delivery } from './store.ts';

export type Outcome = 'sent' | 'retry' | 'dead';
export type DeadReason = 'permanent' | 'max_attempts' | 'expired' | 'lost_lease';

/** What the worker reports about its sends; server/metrics.ts counts it. */
export interface DeliveryMetrics {
  attempt(outcome: Outcome): void;
  deadLettered(reason: DeadReason): void;
  sendDuration(seconds: number): void;
  /** A send taken over from a worker lost mid-send: possibly the RFC 1047 duplicate. */
  resumed(): void;
}

export interface WorkerOptions {
  pool: Pool;
  send: Send;
  log: Logger;
  metrics: DeliveryMetrics;
  retry: RetryPolicy;
  leaseMs: number;
  pollMs: number;
  concurrency: number;
  retentionDays: number;
}

export interface Worker {
  start(): void;
  /** Asks for a claim now (a message was just queued) instead of at the next poll. */
  wake(): void;
  /**
   * Stops claiming; waits up to `graceMs` for sends in flight, then aborts them: a send cut short is
   * tried again later, and one whose 250 could not be recorded yet is sent again (RFC 1047).
   */
  stop(graceMs?: number): Promise<void>;
}

/** The options as a running worker's sends see them, with the way to tell it a store call failed. */
interface Running extends WorkerOptions {
  /** Holds off every take-over of a run-out lease until the store has answered a claim for half a lease. */
  storeFailed(): void;
}

const tracer = trace.getTracer('simrs-notifier');
const PURGE_EVERY_MS = 60 * 60 * 1000;

function parentContext(traceparent: string | null): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/** Wakes the claim loop before its poll interval: a message was queued, a send ended, or stop(). */
function createAlarm() {
  let ring: (() => void) | undefined;
  let pokes = 0;
  return {
    /** Forgets the wake-ups so far: the loop is about to claim, which answers them. */
    reset(): void {
      pokes = 0;
    },
    /** Waits `ms`, or less if woken; not at all if woken since the last reset. */
    sleep(ms: number): Promise<void> {
      if (pokes > 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          ring = undefined;
          resolve();
        }
        ring = done;
      });
    },
    wake(): void {
      pokes += 1;
      ring?.();
    },
    /** Ends a sleep in progress without counting as a wake-up. */
    interrupt(): void {
      ring?.();
    },
  };
}

/**
 * Records a peer's 250. The mail is out, so this write is retried until the store answers (briefly
 * apart, so that it lands before anyone may take the lease over); only a worker stopping for good gives
 * up, and then the message is the one RFC 1047 duplicate.
 */
async function recordSent({ pool, leaseMs, log, storeFailed }: Running, d: Claimed, signal: AbortSignal): Promise<void> {
  const longest = Math.min(1_000, Math.max(10, Math.floor(leaseMs / 10)));
  for (let wait = Math.min(50, longest), failures = 0; ; wait = Math.min(wait * 2, longest), failures++) {
    try {
      return await markSent(pool, d);
    } catch (err) {
      storeFailed();
      if (failures === 0)
        log.warn({ err: { message: (err as Error).message }, delivery_id: d.id }, 'cannot record a sent message yet, retrying');
      if (signal.aborted) throw err;
      await sleep(wait, undefined, { signal }).catch(() => {});
    }
  }
}

async function deadLetter({ pool, log, metrics }: WorkerOptions, d: Delivery, reason: DeadReason, error: string): Promise<void> {
  const held = await markDead(pool, d, error);
  if (!held) return log.warn({ delivery_id: d.id }, 'lease lost before dead-lettering; left to its new holder');
  metrics.attempt('dead');
  metrics.deadLettered(reason);
  log.error({ delivery_id: d.id, template: d.template, attempts: d.attempts, reason, last_error: error }, 'message dead-lettered');
}

/** Why a claimed message must not be sent at all (with the error to record), or undefined. */
function whyNotSend(opts: WorkerOptions, d: Claimed): [DeadReason, string] | undefined {
  if (d.attempts > opts.retry.maxAttempts) {
    // Claimed again after its last attempt's lease ran out: its worker died mid-send.
    return ['lost_lease', `worker lost during attempt ${d.attempts - 1}; outcome unknown, not retried`];
  }
  if (d.valid_until && d.valid_until.getTime() < Date.now()) return ['expired', 'expired before it could be sent'];
  return undefined;
}

/** Counted and logged so that an operator can match a recipient's "I got it twice" to a crash. */
function noteTakeOver({ log, metrics }: WorkerOptions, d: Claimed): void {
  metrics.resumed();
  log.warn(
    { delivery_id: d.id, attempts: d.attempts },
    'taking over a send whose worker was lost; if the peer had already answered 250 this is a duplicate with the same Message-ID',
  );
}

function renderMail(d: Claimed): OutgoingMail {
  return {
    ...render(d.template, d.locale, d.parameters, { createdAt: d.created_at }),
    to: d.recipient,
    messageId: d.message_id,
    deliveryId: d.id,
    locale: d.locale,
  };
}

/** Renews the lease every third of it while a send and its record run; returns the function that stops renewing. */
function holdLease({ pool, leaseMs, storeFailed }: Running, d: Claimed): () => void {
  const renewal = setInterval(
    () => {
      untraced(() => renewLease(pool, d, leaseMs)).catch(storeFailed);
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  return () => clearInterval(renewal);
}

/** A failed send: dead-lettered when it cannot succeed or has had its attempts, else retried later. */
async function recordFailure(opts: WorkerOptions, d: Claimed, span: Span, err: unknown): Promise<void> {
  const failure = classify(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.summary });
  if (failure.permanent) return await deadLetter(opts, d, 'permanent', failure.summary);
  if (d.attempts >= opts.retry.maxAttempts) return await deadLetter(opts, d, 'max_attempts', failure.summary);
  const delay = backoffMs(d.attempts, opts.retry);
  const held = await markRetry(opts.pool, d, delay, failure.summary);
  if (held) opts.metrics.attempt('retry');
  opts.log.warn({ delivery_id: d.id, attempts: d.attempts, retry_in_ms: delay, last_error: failure.summary }, 'send failed, will retry');
}

/** One SMTP attempt under the lease, and its outcome recorded. */
async function sendOnce(opts: Running, d: Claimed, mail: OutgoingMail, signal: AbortSignal, span: Span): Promise<void> {
  const started = performance.now();
  const releaseLease = holdLease(opts, d);
  try {
    let result: SendResult;
    try {
      result = await opts.send(mail, signal).finally(() => opts.metrics.sendDuration((performance.now() - started) / 1000));
    } catch (err) {
      return await recordFailure(opts, d, span, err);
    }
    await recordSent(opts, d, signal);
    opts.metrics.attempt('sent');
    opts.log.info({ delivery_id: d.id, template: d.template, attempts: d.attempts, smtp: result.response.slice(0, 3) }, 'message sent');
  } finally {
    releaseLease();
  }
}

async function deliver(opts: Running, d: Claimed, signal: AbortSignal): Promise<void> {
  const refusal = whyNotSend(opts, d);
  if (refusal) return deadLetter(opts, d, ...refusal);
  if (d.resumed) noteTakeOver(opts, d);
  let mail: OutgoingMail;
  try {
    mail = renderMail(d);
  } catch (err) {
    return deadLetter(opts, d, 'permanent', `cannot render: ${(err as Error).message}`);
  }
  const span = tracer.startSpan(
    'notifier.send',
    { attributes: { 'simrs.delivery.id': d.id, 'simrs.template': d.template, 'simrs.attempt': d.attempts } },
    parentContext(d.traceparent),
  );
  // The store writes below become children of the send span, itself a child of the SendEmail call.
  await context.with(trace.setSpan(context.active(), span), () => sendOnce(opts, d, mail, signal, span).finally(() => span.end()));
}

/** Waits up to `graceMs` for the sends in flight, then aborts those still running and waits for them. */
async function drain(inFlight: Map<string, Promise<void>>, graceMs: number, abort: AbortController, log: Logger): Promise<void> {
  if (inFlight.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
  await Promise.race([Promise.all(inFlight.values()), graceOver]);
  clearTimeout(timer);
  if (inFlight.size > 0) {
    log.warn({ in_flight: inFlight.size }, 'aborting sends still in flight');
    abort.abort(new Error('notifier shutting down'));
    await Promise.all(inFlight.values());
  }
}

export function createWorker(opts: WorkerOptions): Worker {
  const { pool, log } = opts;
  /** The sends this worker is handling, by delivery id. */
  const inFlight = new Map<string, Promise<void>>();
  const abort = new AbortController();
  const alarm = createAlarm();
  let stopping = false;
  let loop: Promise<void> | undefined;
  let storeDown = false;
  /**
   * When run-out leases may be taken over: half a lease after the first claim the store answered
   * since the last failed store call, or since start (Infinity until then).
   */
  let takeOverFrom = Infinity;
  const running: Running = { ...opts, storeFailed: () => void (takeOverFrom = Infinity) };
  let nextPurge = Date.now() + Math.random() * 60_000;

  function track(d: Claimed): void {
    const job = deliver(running, d, abort.signal)
      .catch((err: unknown) => {
        running.storeFailed();
        // The store failed while recording a failed send, or a stop gave up recording a 250: the lease
        // runs out and the message is tried again.
        log.error({ err: { message: (err as Error).message }, delivery_id: d.id }, 'could not record the outcome of a send');
      })
      .finally(() => {
        inFlight.delete(d.id);
        alarm.wake();
      });
    inFlight.set(d.id, job);
  }

  /** Claims up to `free` due messages and starts sending them; how many it claimed. */
  async function claimDue(free: number): Promise<number> {
    try {
      // Rows claimed while stop() was called are still delivered: stop() waits for them.
      const takeOver = Date.now() >= takeOverFrom;
      const due = await untraced(() => claim(pool, free, opts.leaseMs, { skip: [...inFlight.keys()], takeOver }));
      for (const d of due) track(d);
      if (takeOverFrom === Infinity) takeOverFrom = Date.now() + opts.leaseMs / 2;
      if (storeDown) log.info('message store reachable again');
      storeDown = false;
      return due.length;
    } catch (err) {
      if (!storeDown) log.warn({ err: { message: (err as Error).message } }, 'cannot claim messages: store unreachable');
      storeDown = true;
      running.storeFailed();
      return 0;
    }
  }

  function purgeWhenDue(): void {
    if (Date.now() < nextPurge) return;
    nextPurge = Date.now() + PURGE_EVERY_MS;
    untraced(() => purge(pool, opts.retentionDays))
      .then((n) => n && log.info({ deleted: n }, 'purged finished messages past retention'))
      .catch(() => {});
  }

  async function run(): Promise<void> {
    while (!stopping) {
      alarm.reset();
      const free = opts.concurrency - inFlight.size;
      const claimed = free > 0 ? await claimDue(free) : 0;
      purgeWhenDue();
      // A full batch means more may be due: claim again at once.
      if (claimed === 0 || claimed < free) await alarm.sleep(opts.pollMs);
    }
  }

  return {
    start() {
      loop ??= run();
    },
    wake: alarm.wake,
    async stop(graceMs = 4_000) {
      stopping = true;
      alarm.interrupt();
      await loop;
      await drain(inFlight, graceMs, abort, log);
    },
  };
}
