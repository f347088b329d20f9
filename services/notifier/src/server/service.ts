// NotifierService handlers. SendEmail answers only after the message is committed to Postgres, so an
// acknowledged message survives any crash of this process; the worker delivers it.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { context, propagation } from '@opentelemetry/api';
import type { Pool } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { DeliveryState } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import type { NotifierService } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import type { Handlers } from '@simrs/proto/grpc';
import {
  InvalidArgument,
  NotFound,
  StoreUnavailable,
  enqueue,
  findDelivery,
  isStoreUnavailable,
  validateSendEmail,
} from '../deliveries/index.ts';
import type { State } from '../deliveries/index.ts';
import type { Metrics } from './metrics.ts';

export const STATES: Record<State, DeliveryState> = {
  queued: DeliveryState.QUEUED,
  sending: DeliveryState.SENDING,
  sent: DeliveryState.SENT,
  dead: DeliveryState.DEAD,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ServiceDeps {
  pool: Pool;
  log: Logger;
  metrics: Metrics;
  /** Domain of the Message-ID header (the From address's domain). */
  messageIdDomain: string;
  /** Called after a new message is stored, so the local worker sends it without waiting to poll. */
  onQueued: () => void;
}

export function notifierHandlers(deps: ServiceDeps): Handlers<(typeof NotifierService)['method']> {
  const { pool, log, metrics } = deps;

  /** Runs a store call; a database that cannot be reached becomes UNAVAILABLE (retry later). */
  async function store<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      log.warn({ err: { message: (err as Error).message } }, 'message store unavailable');
      throw new StoreUnavailable('message store unavailable, try again');
    }
  }
  return {
    async sendEmail(request) {
      let msg;
      try {
        msg = validateSendEmail(request);
      } catch (err) {
        metrics.rejected();
        // The reason names fields only, never values: safe to log.
        log.info({ reason: (err as Error).message }, 'SendEmail rejected');
        throw err;
      }
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      const result = await store(() => enqueue(pool, msg, deps.messageIdDomain, carrier.traceparent ?? null));
      if (result.created) {
        metrics.accepted(msg.template);
        deps.onQueued();
      } else {
        metrics.duplicate();
      }
      log.info({ delivery_id: result.id, template: msg.template, locale: msg.locale, created: result.created }, 'message queued');
      return { deliveryId: result.id, state: STATES[result.state], created: result.created };
    },

    async getDelivery(request) {
      let by: { id: string } | { idempotencyKey: string };
      if (request.deliveryId) {
        if (!UUID.test(request.deliveryId)) throw new InvalidArgument('delivery_id is not a delivery id');
        by = { id: request.deliveryId };
      } else if (request.idempotencyKey) {
        by = { idempotencyKey: request.idempotencyKey };
      } else {
        throw new InvalidArgument('idempotency_key or delivery_id is required');
      }
      const d = await store(() => findDelivery(pool, by));
      if (!d) throw new NotFound('no such delivery');
      return {
        deliveryId: d.id,
        state: STATES[d.state],
        attempts: d.attempts,
        lastError: d.last_error ?? '',
        createdAt: timestampFromDate(d.created_at),
        updatedAt: timestampFromDate(d.updated_at),
        ...(d.state === 'queued' && d.next_attempt_at ? { nextAttemptAt: timestampFromDate(d.next_attempt_at) } : {}),
        ...(d.sent_at ? { sentAt: timestampFromDate(d.sent_at) } : {}),
        messageId: d.message_id,
      };
    },
  };
}
