// The gateway's limits against a real redis-server: two limiters on two connections (as two replicas
// have) share one count, key names are keyed hashes, and with Redis down each falls back at once to
// its in-memory insurance limiter (still limiting, per replica) and back to Redis when it returns.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRedis } from '@simrs/platform/redis';
import type { Redis } from '@simrs/platform/redis';
import { waitFor } from '@simrs/platform/testing';
import { startRedisServer } from '../../../scripts/lib/redis.ts';
import type { RedisServer } from '../../../scripts/lib/redis.ts';
import { CallerRateLimit, LIMIT_KEY_PREFIX, limitKeySecret } from './limiter.ts';

let server: RedisServer;
let replicaA: Redis;
let replicaB: Redis;
const keySecret = limitKeySecret('s'.repeat(40));

before(async () => {
  server = await startRedisServer();
  replicaA = createRedis(server.url, 'limits-a');
  replicaB = createRedis(server.url, 'limits-b');
  await Promise.all([replicaA.ping(), replicaB.ping()]);
});

after(async () => {
  replicaA?.disconnect();
  replicaB?.disconnect();
  await server?.stop();
});

const limitOn = (redis: Redis, name: string, perMinute: number) => new CallerRateLimit({ redis, keySecret, name, perMinute });

describe('limits in Redis', () => {
  test('two replicas share one count: the sum of what they allow is the limit', async () => {
    const [a, b] = [limitOn(replicaA, 'shared', 5), limitOn(replicaB, 'shared', 5)];
    const verdicts: Array<number | undefined> = [];
    for (let i = 0; i < 10; i++) verdicts.push(await (i % 2 === 0 ? a : b).check('ip:203.0.113.7'));
    assert.equal(verdicts.filter((v) => v === undefined).length, 5, JSON.stringify(verdicts));
    assert.ok(
      verdicts.slice(5).every((v) => v !== undefined && v >= 1 && v <= 60),
      'Retry-After seconds within the window',
    );
    assert.ok((await a.blocked('ip:203.0.113.7')) !== undefined, 'blocked is seen by the replica that did not spend the last point');
    assert.equal(await b.blocked('ip:198.51.100.1'), undefined, 'another caller is not blocked');
  });

  test('key names are a keyed hash: no address or id in Redis', async () => {
    await limitOn(replicaA, 'names', 5).check('rs-client:user-42');
    await limitOn(replicaA, 'names', 5).check('ip:192.0.2.99');
    const keys = await replicaA.keys(`${LIMIT_KEY_PREFIX}:names*`);
    assert.equal(keys.length, 2);
    for (const key of keys) {
      assert.match(key, /^simrs:gw:rl:names:[\w-]{43}$/);
      assert.doesNotMatch(key, /192\.0\.2\.99|user-42|rs-client/);
    }
    const otherSecret = new CallerRateLimit({ redis: replicaA, keySecret: limitKeySecret('t'.repeat(40)), name: 'names', perMinute: 5 });
    await otherSecret.check('ip:192.0.2.99');
    assert.equal((await replicaA.keys(`${LIMIT_KEY_PREFIX}:names*`)).length, 3, 'the hash depends on the secret');
  });

  test('0 disables a limit', async () => {
    const off = limitOn(replicaA, 'off', 0);
    for (let i = 0; i < 3; i++) assert.equal(await off.check('ip:203.0.113.8'), undefined);
    assert.equal(await off.blocked('ip:203.0.113.8'), undefined);
  });

  test('Redis down: each replica limits in memory at once; back in Redis when it returns', async () => {
    const [a, b] = [limitOn(replicaA, 'outage', 3), limitOn(replicaB, 'outage', 3)];
    await server.stop();
    await waitFor('both connections to notice', async () => replicaA.status !== 'ready' && replicaB.status !== 'ready');
    try {
      const started = Date.now();
      const onA: Array<number | undefined> = [];
      const onB: Array<number | undefined> = [];
      for (let i = 0; i < 4; i++) {
        onA.push(await a.check('ip:203.0.113.9'));
        onB.push(await b.check('ip:203.0.113.9'));
      }
      assert.ok(Date.now() - started < 500, `no waiting on Redis (${Date.now() - started} ms)`);
      // Each replica on its own: 3 allowed each, the 4th refused; the bound is replicas x limit.
      assert.deepEqual(
        onA.map((v) => v === undefined),
        [true, true, true, false],
      );
      assert.deepEqual(
        onB.map((v) => v === undefined),
        [true, true, true, false],
      );
      assert.ok((await a.blocked('ip:203.0.113.9')) !== undefined);
    } finally {
      await server.start();
    }
    await waitFor('both connections back', async () => replicaA.status === 'ready' && replicaB.status === 'ready');
    const fresh = [limitOn(replicaA, 'after', 2), limitOn(replicaB, 'after', 2)] as const;
    const verdicts = [
      await fresh[0].check('ip:203.0.113.10'),
      await fresh[1].check('ip:203.0.113.10'),
      await fresh[0].check('ip:203.0.113.10'),
    ];
    assert.deepEqual(
      verdicts.map((v) => v === undefined),
      [true, true, false],
      'shared again',
    );
    assert.equal((await replicaB.keys(`${LIMIT_KEY_PREFIX}:after*`)).length, 1);
  });
});
