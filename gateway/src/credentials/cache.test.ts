import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRINCIPAL_TTL_SECONDS, verifyPrincipal } from '@simrs/contracts/principal';
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

test('the principal is signed once per entry, then given back as it is (no promise), and re-signed near its expiry', async () => {
  const cache = new PrincipalCache(secret);
  const now = Date.now();
  cache.set('a', doctor('s1'), now + 600_000);
  const first = cache.mint('a', doctor('s1'), now);
  assert.ok(first instanceof Promise, 'the first one is signed');
  const token = await first;
  assert.equal((await verifyPrincipal(token, secret)).userId, 'u1');
  assert.equal(cache.mint('a', doctor('s1'), now + 1_000), token, 'then the same string, synchronously');
  const late = cache.mint('a', doctor('s1'), now + PRINCIPAL_TTL_SECONDS * 1000);
  assert.ok(late instanceof Promise, 'close to its expiry it is signed again');
  // An entry evicted meanwhile (revocation) keeps nothing: every mint signs.
  cache.evict({ sessionIds: ['s1'] });
  assert.ok(cache.mint('a', doctor('s1'), now) instanceof Promise);
});
