import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signPrincipal } from '@simrs/contracts/principal';
import { principalVerifier } from './principals.ts';

const SECRET = 'a'.repeat(32);
const principal = { userId: 'u1', tenantId: 'rs-a', role: 'doctor', scopes: ['simrs:read'] };

test('a verified principal is answered from the cache with the same content', async () => {
  const verify = principalVerifier(SECRET);
  const token = await signPrincipal(principal, SECRET, 60);
  assert.deepEqual(await verify(token), principal);
  assert.deepEqual(await verify(token), principal);
  assert.equal(verify.size, 1);
});

test('a cached token past its own expiry is verified again, and refused', async () => {
  let clock = Date.now();
  const verify = principalVerifier(SECRET, { now: () => clock });
  const token = await signPrincipal(principal, SECRET, 1);
  await verify(token);
  clock += 2_000;
  await new Promise((resolve) => setTimeout(resolve, 2_100)); // jose checks exp against the real clock
  await assert.rejects(verify(token));
  assert.equal(verify.size, 0);
});

test('forged and malformed tokens are refused and never cached', async () => {
  const verify = principalVerifier(SECRET);
  const forged = await signPrincipal(principal, 'b'.repeat(32), 60);
  await assert.rejects(verify(forged));
  await assert.rejects(verify('not-a-jwt'));
  assert.equal(verify.size, 0);
});

test('the cache is bounded: the oldest entries make room', async () => {
  const verify = principalVerifier(SECRET, { maxEntries: 10 });
  for (let i = 0; i < 25; i++) await verify(await signPrincipal({ ...principal, userId: `u${i}` }, SECRET, 60));
  assert.ok(verify.size <= 10, `size ${verify.size}`);
});
