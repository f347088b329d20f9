// Connection pool use, read at scrape time (observable instruments, so nothing is counted on the hot
// path): Postgres pools (pg.Pool totalCount/idleCount/waitingCount) and Redis connections (ioredis
// status and queued commands). Labels are pool and connection names chosen in code, never URLs.
import type { Pool } from './db.ts';
import { meter } from './metrics.ts';
import type { Redis } from './redis.ts';

const pools: Array<{ name: string; pool: Pool }> = [];
const redises: Array<{ name: string; redis: Redis }> = [];
let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  const m = meter('platform');
  const connections = m.createObservableGauge('pg.pool.connections', {
    description: 'Postgres pool connections by state (busy, idle), per pool.',
  });
  const waiting = m.createObservableGauge('pg.pool.waiting', { description: 'Queries waiting for a free Postgres connection, per pool.' });
  const max = m.createObservableGauge('pg.pool.max', { description: 'Configured maximum size of the Postgres pool.' });
  const up = m.createObservableGauge('redis.connection.up', { description: 'Whether the Redis connection is ready (1) or not (0).' });
  const queued = m.createObservableGauge('redis.connection.queued_commands', {
    description: 'Commands sent and not yet answered, plus commands held while disconnected.',
  });
  m.addBatchObservableCallback(
    (result) => {
      for (const { name, pool } of pools) {
        result.observe(connections, pool.totalCount - pool.idleCount, { pool: name, state: 'busy' });
        result.observe(connections, pool.idleCount, { pool: name, state: 'idle' });
        result.observe(waiting, pool.waitingCount, { pool: name });
        result.observe(max, pool.options.max ?? 10, { pool: name });
      }
      for (const { name, redis } of redises) {
        const r = redis as unknown as { commandQueue?: { length: number }; offlineQueue?: { length: number } };
        result.observe(up, redis.status === 'ready' ? 1 : 0, { connection: name });
        result.observe(queued, (r.commandQueue?.length ?? 0) + (r.offlineQueue?.length ?? 0), { connection: name });
      }
    },
    [connections, waiting, max, up, queued],
  );
}

/** Reports a Postgres pool on /metrics as `pg_pool_*{pool="<name>"}`. */
export function observePgPool(name: string, pool: Pool): void {
  register();
  pools.push({ name, pool });
}

/** Reports a Redis connection on /metrics as `redis_connection_*{connection="<name>"}`. */
export function observeRedis(name: string, redis: Redis): void {
  register();
  redises.push({ name, redis });
}
