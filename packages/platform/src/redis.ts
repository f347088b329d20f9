// ioredis with fail-fast settings: a command waits at most one reconnect attempt, so that Redis being
// down turns into a quick 503 instead of requests piling up.
//
// With Sentinels (REDIS_SENTINELS, REDIS_MASTER_NAME) ioredis asks them for the current master on every
// (re)connect, so a failover needs no restart. REDIS_URL still carries the scheme (rediss:// for TLS),
// the password and the database number; its host is then unused.
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

export { Redis };

export interface RedisSettings {
  REDIS_URL: string;
  /** host:port of each Sentinel; empty for a single Redis at REDIS_URL. */
  REDIS_SENTINELS: string[];
  REDIS_MASTER_NAME: string;
}

/** ioredis' own Sentinel options for the settings, or none without Sentinels. */
export function sentinelOptions(settings: RedisSettings): RedisOptions {
  if (settings.REDIS_SENTINELS.length === 0) return {};
  return {
    sentinels: settings.REDIS_SENTINELS.map((entry) => {
      const at = entry.lastIndexOf(':');
      return { host: entry.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(entry.slice(at + 1)) };
    }),
    name: settings.REDIS_MASTER_NAME,
    role: 'master',
    // No failoverDetector: its subscriptions outlive the connection they watch, and a +switch-master
    // that lands while the client is already reconnecting closes the connector under it, which ends
    // the client for good (status 'end', every command refused, no further reconnect). A killed master
    // closes its connections and a demoted one answers READONLY (below); either way the reconnect asks
    // the Sentinels again.
    sentinelRetryStrategy: (times) => Math.min(times * 200, 2_000),
  };
}

/**
 * A demoted master keeps its connections open and answers writes with READONLY; reconnecting (through
 * the Sentinels) and resending the command reaches the new master.
 */
export function reconnectOnReadOnly(err: Error): 2 | false {
  return err.message.startsWith('READONLY') ? 2 : false;
}

/** A client of one Redis at a URL, or of the master the settings' Sentinels name. */
export function createRedis(target: string | RedisSettings, name: string): Redis {
  const settings = typeof target === 'string' ? { REDIS_URL: target, REDIS_SENTINELS: [], REDIS_MASTER_NAME: '' } : target;
  const redis = new Redis(settings.REDIS_URL, {
    connectionName: name,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    enableAutoPipelining: true,
    // Quick first tries: after a failover the Sentinels name the new master within seconds.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
    reconnectOnError: reconnectOnReadOnly,
    ...sentinelOptions(settings),
  });
  // Reconnects are automatic; without a listener an 'error' event would crash the process.
  redis.on('error', () => {});
  return redis;
}

export async function pingRedis(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') throw new Error(`redis ${redis.status}`);
  await redis.ping();
}
