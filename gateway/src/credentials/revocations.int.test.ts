// The revocation feed after a Redis failover: the subscriber may reach the new master before the client
// that reads the revocation log does. The feed must become live once the log is read, not stay
// untrusted until the next reconnect.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createRedis } from '@simrs/platform/redis';
import type { Redis } from '@simrs/platform/redis';
import { freePort, waitFor } from '@simrs/platform/testing';
import { startRedisServer } from '../../../scripts/lib/redis.ts';
import type { RedisServer } from '../../../scripts/lib/redis.ts';

// revocations.ts logs through the gateway's server folder, which reads the gateway's settings on import.
process.env.PRINCIPAL_SECRET ??= 'p'.repeat(40);
process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
const { Revocations } = await import('./revocations.ts');

const servers: RedisServer[] = [];
const clients: Redis[] = [];
after(async () => {
  for (const client of clients) client.disconnect();
  await Promise.all(servers.map((s) => s.stop()));
});

test('the feed becomes live once the log can be read, when the reader comes back after the subscriber', async () => {
  const subscribed = await startRedisServer();
  servers.push(subscribed);
  const readerPort = await freePort();
  const subscriber = createRedis(subscribed.url, 'test-revocations');
  const reader = createRedis(`redis://127.0.0.1:${readerPort}`, 'test-revocations-reader');
  clients.push(subscriber, reader);
  const revocations = new Revocations(subscriber, reader);
  // Nothing listens on the reader's port yet: after its second failed attempt to connect, ioredis fails
  // the commands waiting for it (maxRetriesPerRequest 1), the first read of the log among them.
  let failures = 0;
  reader.on('error', () => failures++);
  await waitFor('the first read of the log to fail', async () => failures >= 3, 10_000, 20);
  await waitFor('the subscriber to connect', async () => subscriber.status === 'ready');
  assert.equal(revocations.live, false, 'not live while the log cannot be read');
  servers.push(await startRedisServer({ port: readerPort }));
  await waitFor('the feed to be live', async () => revocations.live, 10_000);
});
