// Production-shaped: an https public URL behind a TLS-terminating proxy (TRUSTED_PROXIES), a cookie
// domain. Signing in through the gateway sets the __Secure- cookie with its flags, and that cookie then
// authenticates API calls from the public origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { isOtpMail, otpFrom, seedUsers } from './support/users.ts';

const PUBLIC = 'https://simrs.example.test';
let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_https_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    publicUrl: PUBLIC,
    env: { gateway: { TRUSTED_PROXIES: 'loopback' }, identity: { COOKIE_DOMAIN: 'simrs.example.test' } },
  });
  await seedUsers(stack, [{ email: 'dokter@rs-https.test', tenant: 'rs-https', role: 'doctor' }]);
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

/** As the TLS-terminating ingress would forward a browser's request. */
const viaProxy = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  origin: PUBLIC,
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'simrs.example.test',
  ...extra,
});

describe('https mode through the gateway', () => {
  test('the session cookie is __Secure-, HttpOnly, Secure, SameSite=Lax, on the cookie domain, and works', async () => {
    const email = 'dokter@rs-https.test';
    const since = smtp.messages.length;
    const sent = await fetch(`${stack.gatewayUrl}/api/auth/email-otp/send-verification-otp`, {
      method: 'POST',
      headers: viaProxy(),
      body: JSON.stringify({ email, type: 'sign-in' }),
    });
    assert.equal(sent.status, 200);
    const otp = otpFrom((await smtp.waitForMail(email, since, isOtpMail)).text);
    const res = await fetch(`${stack.gatewayUrl}/api/auth/sign-in/email-otp`, {
      method: 'POST',
      headers: viaProxy(),
      body: JSON.stringify({ email, otp }),
    });
    assert.equal(res.status, 200);
    const line = res.headers.getSetCookie().find((c) => c.startsWith('__Secure-simrs.session_token='));
    assert.ok(line, res.headers.getSetCookie().join(' | '));
    const attributes = line.split(';').map((a) => a.trim().toLowerCase());
    for (const expected of ['httponly', 'secure', 'samesite=lax', 'domain=simrs.example.test', 'path=/'])
      assert.ok(attributes.includes(expected), `${expected} in ${line}`);

    const cookie = line.split(';')[0]!;
    const list = await fetch(`${stack.gatewayUrl}/trpc/pasien.list`, { headers: viaProxy({ cookie }) });
    assert.equal(list.status, 200, 'the __Secure- cookie authenticates from the public origin');
    const plain = await fetch(`${stack.gatewayUrl}/trpc/pasien.list`, { headers: viaProxy({ cookie: cookie.replace('__Secure-', '') }) });
    assert.equal(plain.status, 401, 'in https mode only the __Secure- name counts');
  });
});
