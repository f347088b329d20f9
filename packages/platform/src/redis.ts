// ioredis with fail-fast settings: a command waits at most one reconnect attempt, so that Redis being
// down turns into a quick 503 instead of requests piling up.
import { Redis } from 'ioredis';

export { Redis };

export function createRedis(url: string, name: string): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // Reconnects are automatic; without a listener an 'error' event would crash the process.
  redis.on('error', () => {});
  return redis;
}

export async function pingRedis(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') throw new Error(`redis ${redis.status}`);
  await redis.ping();
}
