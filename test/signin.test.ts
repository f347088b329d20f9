// Issue 4's sign-in limits through the gateway (the identity suite checks them on identity itself):
// magic links work once and expire, codes allow three attempts and expire, sends are limited per
// address, an unknown address learns nothing and creates nothing, passwords and sign-up are refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { isOtpMail, otpFrom, seedUsers, sessionCookie } from './support/users.ts';

const TTL_SECONDS = 3;
let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_signin_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    // Short lifetimes so that expiry can be watched; the identity suite checks that the defaults are 300 s.
    env: {
      identity: { OTP_TTL_SECONDS: String(TTL_SECONDS), MAGIC_LINK_TTL_SECONDS: String(TTL_SECONDS), OTP_SENDS_PER_ADDRESS_PER_HOUR: '3' },
    },
  });
  await seedUsers(
    stack,
    ['link', 'otp', 'late', 'limit'].map((name) => ({ email: `${name}@rs-signin.test`, tenant: 'rs-signin', role: 'doctor' })),
  );
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

const post = (path: string, body: unknown) =>
  fetch(`${stack.gatewayUrl}/api/auth${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: stack.publicUrl },
    body: JSON.stringify(body),
    redirect: 'manual',
  });

async function requestCode(email: string): Promise<string> {
  const since = smtp.messages.length;
  assert.equal((await post('/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 200);
  return otpFrom((await smtp.waitForMail(email, since, isOtpMail)).text);
}

async function requestLink(email: string): Promise<string> {
  const since = smtp.messages.length;
  assert.equal((await post('/sign-in/magic-link', { email, callbackURL: '/akun' })).status, 200);
  const mail = await smtp.waitForMail(email, since, (m) => /magic-link\/verify/.test(m.text));
  const url = new URL(/https?:\/\/\S+magic-link\/verify\S+/.exec(mail.text)![0]);
  return `${stack.gatewayUrl}${url.pathname}${url.search}`;
}

const open = async (link: string) => sessionCookie((await fetch(link, { redirect: 'manual' })).headers.getSetCookie());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sign-in limits through the gateway', () => {
  test('a magic link signs in once; a second use fails; an expired one fails', async () => {
    const link = await requestLink('link@rs-signin.test');
    assert.ok(await open(link), 'first use signs in');
    assert.equal(await open(link), undefined, 'second use fails');
    const late = await requestLink('link@rs-signin.test');
    await sleep(TTL_SECONDS * 1000 + 1500);
    assert.equal(await open(late), undefined, 'expired');
  });

  test('a code: 6 digits; three wrong tries and the right one fails; an expired one fails', async () => {
    const code = await requestCode('otp@rs-signin.test');
    assert.match(code, /^\d{6}$/);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++)
      assert.notEqual((await post('/sign-in/email-otp', { email: 'otp@rs-signin.test', otp: wrong })).status, 200);
    const right = await post('/sign-in/email-otp', { email: 'otp@rs-signin.test', otp: code });
    assert.notEqual(right.status, 200, 'the code is spent after three wrong tries');
    assert.equal(sessionCookie(right.headers.getSetCookie()), undefined);

    const late = await requestCode('late@rs-signin.test');
    await sleep(TTL_SECONDS * 1000 + 1500);
    assert.notEqual((await post('/sign-in/email-otp', { email: 'late@rs-signin.test', otp: late })).status, 200, 'expired');
  });

  test('sends are limited per address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await post('/email-otp/send-verification-otp', { email: 'limit@rs-signin.test', type: 'sign-in' })).status);
    assert.deepEqual(statuses.slice(0, 3), [200, 200, 200]);
    assert.ok(
      statuses.slice(3).every((s) => s === 429),
      `after 3 sends: ${statuses.join(', ')}`,
    );
  });

  test('an unknown address gets the same status and body, no mail and no user row', async () => {
    const known = await post('/email-otp/send-verification-otp', { email: 'otp@rs-signin.test', type: 'sign-in' });
    const unknown = await post('/email-otp/send-verification-otp', { email: 'nobody@rs-signin.test', type: 'sign-in' });
    assert.equal(unknown.status, known.status);
    assert.equal(await unknown.text(), await known.text());
    const link = await post('/sign-in/magic-link', { email: 'nobody@rs-signin.test' });
    const knownLink = await post('/sign-in/magic-link', { email: 'link@rs-signin.test' });
    assert.equal(link.status, knownLink.status);
    assert.equal(await link.text(), await knownLink.text());
    await smtp.waitForMail('otp@rs-signin.test', 0);
    await sleep(1500);
    assert.equal(smtp.messages.filter((m) => m.to.includes('nobody@rs-signin.test')).length, 0, 'no mail');
    const db = new pg.Client({ connectionString: stack.databases.identity });
    await db.connect();
    try {
      const { rows } = await db.query('select count(*)::int as n from "user" where email = $1', ['nobody@rs-signin.test']);
      assert.equal(rows[0].n, 0, 'no user row');
    } finally {
      await db.end();
    }
  });

  test('password sign-in and every sign-up route are refused', async () => {
    const password = await post('/sign-in/email', { email: 'otp@rs-signin.test', password: 'correct horse battery staple' });
    assert.ok(password.status >= 400 && password.status < 500, `password sign-in: ${password.status}`);
    for (const path of ['/sign-up/email', '/sign-up/anything']) {
      const res = await post(path, { email: 'new@rs-signin.test', password: 'correct horse battery staple', name: 'New' });
      assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status}`);
    }
  });
});
