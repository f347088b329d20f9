// The secondary storage against a real redis-server: Better Auth's contract, and nothing readable.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { deriveKeys } from '../keys/index.ts';
import { startRedis } from '../testing/index.ts';
import type { RedisServer } from '../testing/index.ts';
import { createIdentityStorage, KEY_PREFIX } from './storage.ts';
import type { IdentityStorage } from './storage.ts';

describe('identity storage', () => {
  let redis: RedisServer;
  let storage: IdentityStorage;
  before(async () => {
    redis = await startRedis();
    storage = createIdentityStorage(redis.client, deriveKeys('a-test-secret-that-is-long-enough-0123456789'));
  });
  after(async () => {
    await redis?.stop();
  });

  test('get, set with a TTL, delete', async () => {
    assert.equal(await storage.get('missing'), null);
    await storage.set('rawSessionToken123', '{"hello":"dokter@rs-demo.test"}', 60);
    assert.equal(await storage.get('rawSessionToken123'), '{"hello":"dokter@rs-demo.test"}');
    const [name] = await redis.client.keys('*');
    assert.ok(name!.startsWith(KEY_PREFIX) && !name!.includes('rawSessionToken123'));
    assert.equal(name, storage.keyName('rawSessionToken123'));
    const ttl = await redis.client.ttl(name!);
    assert.ok(ttl > 55 && ttl <= 60);
    const raw = (await redis.client.get(name!))!;
    assert.ok(!raw.includes('dokter') && !raw.includes('hello'));
    await storage.delete('rawSessionToken123');
    assert.equal(await storage.get('rawSessionToken123'), null);
    await storage.set('forever', 'x');
    assert.equal(await redis.client.ttl(storage.keyName('forever')), -1);
  });

  test('getAndDelete is atomic and single-shot', async () => {
    await storage.set('verification:abc', 'value', 60);
    const results = await Promise.all([storage.getAndDelete('verification:abc'), storage.getAndDelete('verification:abc')]);
    assert.deepEqual(results.sort(), [null, 'value'].sort());
  });

  test('increment creates with a TTL that later increments do not extend', async () => {
    assert.equal(await storage.increment('rl:1.2.3.4:/sign-in', 2), 1);
    assert.equal(await storage.increment('rl:1.2.3.4:/sign-in', 100), 2);
    const ttl = await redis.client.ttl(storage.keyName('rl:1.2.3.4:/sign-in'));
    assert.ok(ttl > 0 && ttl <= 2, `ttl ${ttl}`);
    await sleep(2_100);
    assert.equal(await storage.increment('rl:1.2.3.4:/sign-in', 2), 1);
  });

  test('a cached session created before a revocation marker reads as absent', async () => {
    const old = JSON.stringify({
      session: { id: 's1', userId: 'u1', createdAt: new Date(Date.now() - 1000).toISOString() },
      user: { id: 'u1' },
    });
    await storage.set('token-old', old, 60);
    await storage.markUserSessionsRevoked('u1', Date.now(), 60);
    assert.equal(await storage.get('token-old'), null);
    await sleep(5);
    const fresh = JSON.stringify({ session: { id: 's2', userId: 'u1', createdAt: new Date().toISOString() }, user: { id: 'u1' } });
    await storage.set('token-new', fresh, 60);
    assert.equal(await storage.get('token-new'), fresh);
    const other = JSON.stringify({ session: { id: 's3', userId: 'u2', createdAt: new Date(0).toISOString() }, user: { id: 'u2' } });
    await storage.set('token-other', other, 60);
    assert.equal(await storage.get('token-other'), other, 'other users are unaffected');
  });

  test('a value that does not open reads as absent', async () => {
    await redis.client.set(storage.keyName('tampered'), 'e1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    assert.equal(await storage.get('tampered'), null);
  });
});
