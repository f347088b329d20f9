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
import { refusedThenSpend } from './refused-then-spend.ts';

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

  test('blocked: not while points are left (one GET answers), yes once they are spent, with the seconds to wait', async () => {
    const limit = limitOn(replicaA, 'partial', 3);
    await limit.check('ip:203.0.113.20');
    await limit.check('ip:203.0.113.20');
    assert.equal(await limit.blocked('ip:203.0.113.20'), undefined, 'one point left');
    await limit.check('ip:203.0.113.20');
    const wait = await limit.blocked('ip:203.0.113.20');
    assert.ok(wait !== undefined && wait >= 1 && wait <= 60, String(wait));
  });

  test('refusedThenSpend: the answers of blocked then check, in one script, on the same counts', async () => {
    const refused = limitOn(replicaA, 'rts-refused', 2);
    const caller = limitOn(replicaB, 'rts-caller', 3);
    const ip = 'ip:203.0.113.30';
    // The script runs on the caller limit's connection; the refused count may come from any replica.
    const together = (callerKey: string) => refusedThenSpend(limitOn(replicaB, 'rts-refused', 2), ip, caller, callerKey);
    assert.deepEqual(await together('u:1'), {});
    assert.deepEqual(await together('u:1'), {});
    await caller.check('u:1'); // the third point, spent the separate way: one count
    const over = await together('u:1');
    assert.ok(over.wait !== undefined && over.wait >= 1 && over.wait <= 60 && over.cooling === undefined, JSON.stringify(over));
    assert.deepEqual(await together('u:2'), {}, 'another caller has its own budget');
    // Two refusals put the IP over its limit: cooling, and the caller's point is not spent.
    await refused.check(ip);
    await refused.check(ip);
    const spentBefore = await replicaA.get(caller.redisKey('u:3'));
    const cooling = await together('u:3');
    assert.ok(cooling.cooling !== undefined && cooling.cooling >= 1 && cooling.cooling <= 60 && cooling.wait === undefined);
    assert.equal(await replicaA.get(caller.redisKey('u:3')), spentBefore, 'no point spent while cooling');
    assert.deepEqual(await refused.blocked(ip), cooling.cooling, 'the same verdict as blocked');
    assert.deepEqual(await refusedThenSpend(refused, 'ip:203.0.113.31', caller, 'u:3'), {}, 'another IP is not cooling');
  });

  test('refusedThenSpend in the same tick as other commands on a fresh connection (one auto-pipeline)', async () => {
    const fresh = createRedis(server.url, 'limits-fresh');
    try {
      await fresh.ping();
      const [refused, caller] = [limitOn(fresh, 'tick-refused', 5), limitOn(fresh, 'tick-caller', 5)];
      const [before, verdict, after] = await Promise.all([
        fresh.get('simrs:test:unrelated'),
        refusedThenSpend(refused, 'ip:203.0.113.40', caller, 'u:40'),
        fresh.incr('simrs:test:counter'),
      ]);
      assert.deepEqual([before, verdict, after], [null, {}, 1]);
      assert.equal(await fresh.get(caller.redisKey('u:40')), '1', 'spent in Redis, not in memory');
    } finally {
      fresh.disconnect();
    }
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
      // The script cannot run: the two calls' answers from the in-memory limiters instead.
      const cooling = await refusedThenSpend(a, 'ip:203.0.113.9', b, 'u:9');
      assert.ok(cooling.cooling !== undefined && cooling.wait === undefined, JSON.stringify(cooling));
      const spent = await refusedThenSpend(a, 'ip:203.0.113.99', b, 'ip:203.0.113.9');
      assert.ok(spent.wait !== undefined && spent.cooling === undefined, JSON.stringify(spent));
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
