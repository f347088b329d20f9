// The worker that empties the SATUSEHAT outbox, in every records replica: SATUSEHAT_CONCURRENCY loops,
// each claiming one due row at a time (FOR UPDATE SKIP LOCKED in records.satusehat_claim, then a lease),
// sending the visit under its own hospital's scope and credentials, and recording the outcome under
// the claim: sent; queued again with backoff when the platform was away, slow or busy; failed (the
// platform's words kept) when it refused; incomplete (the reason kept) when someone cannot be found.
// A replica that dies mid-send leaves its row to be claimed again once the lease lapses; the send is
// safe to repeat (send.ts).
import { randomUUID } from 'node:crypto';
import type { Logger } from '@simrs/platform/logger';
import type { Pool } from '@simrs/platform/db';
import type { Redis } from '@simrs/platform/redis';
import type { Config } from '../config.ts';
import { tenantDb } from '../db/index.ts';
import { settingsStore } from '../poli/index.ts';
import type { TenantScope } from '../server/index.ts';
import { platformClient, PlatformRefused, PlatformUnavailable } from './platform.ts';
import type { Connection, PlatformClient } from './platform.ts';
import { Incomplete, sendVisit } from './send.ts';
import { satusehatStore, sealKeyFrom } from './store.ts';
import type { OutboxState, SatusehatStore } from './store.ts';

export interface WorkerDeps {
  pool: Pool;
  redis: Redis;
  config: Config;
  log: Logger;
}

interface Claimed {
  id: string;
  tenant_id: string;
  kunjungan_id: string;
  claim: string;
  attempts: number;
}

/** The base URL of the hospital's chosen environment. */
export const baseUrlOf = (config: Config, environment: 'staging' | 'production') =>
  (environment === 'production' ? config.SATUSEHAT_PRODUCTION_URL : config.SATUSEHAT_STAGING_URL).replace(/\/$/, '');

/** The scope the worker reads a hospital's visit under: its audit rows name the worker and why. */
export function workerScope(pool: Pool, tenantId: string): TenantScope {
  return {
    db: tenantDb(pool, tenantId),
    actor: { userId: 'satusehat-worker', role: 'system', requestId: randomUUID(), purpose: 'satusehat' },
    cursors: undefined as never,
  };
}

/** The hospital's connection, or why the visit cannot be sent yet. */
export async function connectionOf(scope: TenantScope, store: SatusehatStore, config: Config): Promise<Connection> {
  const { organizationId } = await settingsStore(scope).getSettings();
  if (!organizationId) throw new Incomplete("the hospital's SATUSEHAT organization id is not set (settings)");
  const credentials = await store.credentials();
  if (!credentials) throw new Incomplete('no SATUSEHAT connection is set for this hospital');
  return { tenantId: scope.db.tenantId, organizationId, ...credentials, baseUrl: baseUrlOf(config, credentials.environment) };
}

function backoffMs(config: Config, attempts: number, atLeast: number): number {
  const exp = Math.min(config.SATUSEHAT_RETRY_MAX_MS, config.SATUSEHAT_RETRY_BASE_MS * 2 ** Math.min(attempts - 1, 20));
  return Math.max(atLeast, Math.round(exp * (0.8 + Math.random() * 0.4)));
}

export function startSatusehatWorker({ pool, redis, config, log }: WorkerDeps): { stop(): Promise<void> } {
  const sealKey = sealKeyFrom(config);
  const platform: PlatformClient = platformClient({
    redis,
    sealKey,
    timeoutMs: config.SATUSEHAT_TIMEOUT_MS,
    tokenRetryMs: config.SATUSEHAT_TOKEN_RETRY_MS,
  });
  let running = true;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function claimOne(): Promise<Claimed | undefined> {
    const { rows } = await pool.query<Claimed>(
      'select id::text, tenant_id, kunjungan_id::text, claim::text, attempts from records.satusehat_claim(1, $1)',
      [config.SATUSEHAT_LEASE_MS],
    );
    return rows[0];
  }

  async function handle(row: Claimed): Promise<void> {
    const scope = workerScope(pool, row.tenant_id);
    const store = satusehatStore(scope.db, sealKey);
    let outcome: { state: OutboxState; error?: string; retryInMs?: number };
    try {
      await sendVisit({ scope, store, platform, connection: await connectionOf(scope, store, config) }, row.kunjungan_id);
      outcome = { state: 'sent' };
    } catch (err) {
      if (err instanceof Incomplete) outcome = { state: 'incomplete', error: err.message };
      else if (err instanceof PlatformRefused) outcome = { state: 'failed', error: err.message };
      else {
        const away = err instanceof PlatformUnavailable;
        if (!away) log.error({ err: (err as Error).message, tenantId: row.tenant_id }, 'satusehat send stopped by an error of ours');
        const message = away ? err.message : 'records could not finish the send; it will be tried again';
        outcome = { state: 'queued', error: message, retryInMs: backoffMs(config, row.attempts, away ? err.retryAfterMs : 0) };
      }
    }
    const recorded = await store.record(Number(row.id), row.claim, outcome);
    log.info({ tenantId: row.tenant_id, outboxId: row.id, state: outcome.state, attempts: row.attempts, recorded }, 'satusehat send');
  }

  async function loop(): Promise<void> {
    while (running) {
      try {
        const row = await claimOne();
        if (row) await handle(row);
        else await sleep(config.SATUSEHAT_POLL_MS);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'satusehat worker: the outbox could not be read; trying again');
        await sleep(config.SATUSEHAT_POLL_MS);
      }
    }
  }

  const loops = Array.from({ length: config.SATUSEHAT_CONCURRENCY }, () => loop());
  return {
    async stop() {
      running = false;
      wake?.();
      await Promise.allSettled(loops);
    },
  };
}
