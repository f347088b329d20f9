// Redis loses its data under the whole stack (FLUSHDB on this test's private redis-server): a
// clinician signed in twice stays signed in, the account page still lists the older session, and
// revoke-other-sessions from the newer one ends it at the gateway at once. Through the gateway, as a
// browser would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { seedUsers, signInWithOtp } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
const EMAIL = 'dokter@rs-flush.test';

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({ postgresUrl: testServerUrl, dbPrefix: `t_flush_${Date.now()}_`, redisUrl: redis.url, smtpUrl: smtp.url });
  await seedUsers(stack, [
    { email: 'admin@rs-flush.test', tenant: 'rs-flush', role: 'tenant_admin' },
    { email: EMAIL, tenant: 'rs-flush', role: 'doctor' },
  ]);
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

async function listPatients(cookie: string): Promise<number> {
  const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.list?input=${encodeURIComponent('{"limit":1}')}`, {
    headers: { cookie, origin: stack.publicUrl },
  });
  await res.arrayBuffer();
  return res.status;
}

async function authApi(path: string, cookie: string, body?: unknown): Promise<Response> {
  return fetch(`${stack.gatewayUrl}/api/auth${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie, origin: stack.publicUrl, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function flushRedis(): Promise<void> {
  const client = new Redis(redis.url);
  try {
    assert.equal(await client.flushdb(), 'OK');
  } finally {
    client.disconnect();
  }
}

describe('sessions after Redis lost its data, through the gateway', () => {
  test('the older session stays listed and revoke-other-sessions ends it at the gateway', async () => {
    const older = (await signInWithOtp(stack, smtp, EMAIL)).cookie;
    const newer = (await signInWithOtp(stack, smtp, EMAIL)).cookie;
    assert.equal(await listPatients(older), 200);
    assert.equal(await listPatients(newer), 200);
    await flushRedis();

    assert.equal(await listPatients(older), 200, 'a flush signs nobody out');
    const sessions = (await (await authApi('/account/sessions', newer)).json()) as { id: string; current: boolean }[];
    assert.deepEqual(sessions.map((s) => s.current).sort(), [false, true], 'the account page lists both sessions');

    const res = await authApi('/revoke-other-sessions', newer, {});
    assert.equal(res.status, 200);
    assert.equal(await listPatients(older), 401, 'the older session is refused at once');
    assert.equal(await listPatients(newer), 200, 'the current one keeps working');
    const left = (await (await authApi('/account/sessions', newer)).json()) as { current: boolean }[];
    assert.deepEqual(
      left.map((s) => s.current),
      [true],
    );
  });
});
