// The token cache against the stand-in platform and a real Redis: one token per hospital shared by
// replicas (two clients here), fetched again before the platform's expiry, asked for at most once per
// retry interval after a failure, and kept in Redis sealed under a key that holds no secret.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createRedis } from '@simrs/platform/redis';
import type { Redis } from '@simrs/platform/redis';
import { testRedisUrl, waitFor } from '@simrs/platform/testing';
import { startSatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import type { SatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import { platformClient } from './platform.ts';
import type { Connection } from './platform.ts';

let peer: SatusehatPeer;
let redis: Redis;
const sealKey = randomBytes(32);

before(async () => {
  peer = await startSatusehatPeer({ expiresInSeconds: 2 });
  redis = createRedis(testRedisUrl, 'satusehat-token-test');
});
after(async () => {
  await redis?.quit();
  await peer?.stop();
});

function hospital(secretAtPlatform?: string): Connection {
  const tenantId = `rs-token-${randomBytes(4).toString('hex')}`;
  const c = {
    tenantId,
    organizationId: '100099001',
    clientId: `client-${tenantId}`,
    clientSecret: `secret-${randomBytes(8).toString('hex')}`,
    baseUrl: peer.url,
  };
  peer.addTenant({ organizationId: c.organizationId, clientId: c.clientId, clientSecret: secretAtPlatform ?? c.clientSecret });
  return c;
}
const client = (tokenRetryMs = 60_000) => platformClient({ redis, sealKey, timeoutMs: 2_000, tokenRetryMs });
const search = (c: Connection, p = client()) => p.call(c, 'GET', '/Patient?identifier=https://fhir.kemkes.go.id/id/nik|1');

test('one token per hospital, shared by two replicas, fetched again before it expires', async () => {
  const c = hospital();
  const [a, b] = [client(), client()];
  const before = peer.counters.tokenRequests;
  await Promise.all([search(c, a), search(c, b), search(c, a), search(c, b)]);
  assert.equal(peer.counters.tokenRequests - before, 1);
  // The platform's tokens live 2 s here: the cache drops them a tenth of that early, so no request meets an expired one.
  await waitFor('a fresh token', async () => (await search(c, a), peer.counters.tokenRequests - before === 2), 5_000, 100);
  assert.deepEqual(
    peer.log.filter((l) => l.status === 401),
    [],
  );
  const keys = await redis.keys(`satusehat:*${c.tenantId}*`);
  assert.ok(keys.length >= 1);
  for (const key of keys) {
    assert.ok(!key.includes(c.clientSecret) && !key.includes(c.clientId), key);
    const value = (await redis.get(key)) ?? '';
    assert.ok(!value.includes(c.clientSecret), 'no secret in a value');
    assert.ok(value === '' || value.startsWith('e1.') || value === '1', 'the token is sealed');
  }
});

test('after a refused token request the next waits the retry interval, whichever replica asks', async () => {
  const c = hospital('another-secret');
  const before = peer.counters.tokenRequests;
  for (const p of [client(500), client(500), client(500)]) await assert.rejects(() => search(c, p), /refused the credentials/);
  assert.equal(peer.counters.tokenRequests - before, 1);
  await waitFor(
    'the retry interval to pass',
    async () => (await search(c).catch(() => undefined), peer.counters.tokenRequests - before === 2),
    5_000,
    100,
  );
});
