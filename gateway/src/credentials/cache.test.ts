import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrincipalCache } from './cache.ts';

const secret = 's'.repeat(40);
const doctor = (sessionId: string) => ({ userId: 'u1', tenantId: 'rs-demo', role: 'doctor', scopes: ['simrs:read'], sessionId });

test('revocations evict by session and by user, and nothing else', () => {
  const cache = new PrincipalCache(secret);
  const until = Date.now() + 60_000;
  cache.set('a', doctor('s1'), until);
  cache.set('b', doctor('s2'), until);
  cache.set('c', { ...doctor('s3'), userId: 'u2' }, until);
  assert.equal(cache.evict({ sessionIds: ['s1'] }), 1);
  assert.equal(cache.get('a'), undefined);
  assert.ok(cache.get('b'));
  assert.equal(cache.evict({ userId: 'u1' }), 1);
  assert.equal(cache.get('b'), undefined);
  assert.ok(cache.get('c'), "another user's entry stays");
  cache.set('c', { ...doctor('s4'), userId: 'u2' }, until);
  assert.equal(cache.evict({ sessionIds: ['s3'] }), 0, 'a replaced entry is no longer indexed under its old session');
  assert.equal(cache.evict({ sessionIds: ['s4'] }), 1);
  assert.equal(cache.size, 0);
});

test('expired entries miss', () => {
  const cache = new PrincipalCache(secret);
  cache.set('a', doctor('s1'), Date.now() - 1);
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.misses, 1);
});
