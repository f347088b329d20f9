// Sign-in by e-mail against the real processes: identity, the notifier and an SMTP peer.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createClient } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { deriveKeys, hmac } from '../keys/index.ts';
import { KEY_PREFIX } from '../sessions/index.ts';
import { linkFrom, otpFrom, signInWithOtp, startFixture } from '../testing/index.ts';
import type { Client, Fixture } from '../testing/index.ts';

const COOKIE = 'simrs.session_token';

describe('sign-in by e-mail', () => {
  let f: Fixture;
  let db: pg.Client;
  /** Everything that must never appear in Redis in clear: tokens, codes, addresses. */
  const secrets = new Set<string>(['rs-demo.test', 'rs-lain.test', 'nobody@rs-demo.test']);
  const remember = (client: Client) => {
    const value = client.cookies.get(COOKIE);
    if (value) secrets.add(decodeURIComponent(value).split('.')[0]!);
  };

  before(async () => {
    f = await startFixture('signin');
    db = new pg.Client({ connectionString: f.db.url });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await f?.stop();
  });

  test('a 6-digit code from the mail signs in, and ValidateSession knows the session', async () => {
    const browser = f.client();
    await signInWithOtp(f, browser, 'dokter@rs-demo.test');
    remember(browser);
    secrets.add(otpFrom(f.smtp.to('dokter@rs-demo.test').at(-1)!));
    const cookie = browser.cookies.get(COOKIE);
    assert.ok(cookie, 'session cookie set');
    const identity = createClient(IdentityService, f.grpcAddress);
    try {
      const { principal } = await identity.validateSession({ sessionToken: cookie });
      assert.equal(principal?.tenantId, 'rs-demo');
      assert.equal(principal?.role, 'doctor');
      assert.deepEqual(principal?.scopes, ['simrs:read', 'simrs:write']);
      assert.ok(principal?.sessionId);
      // The browser sends the value URL-encoded; the decoded form works too.
      const again = await identity.validateSession({ sessionToken: decodeURIComponent(cookie) });
      assert.equal(again.principal?.userId, principal?.userId);
      await assert.rejects(identity.validateSession({ sessionToken: `${cookie.slice(0, -6)}AAAA%3D` }), { code: 16 });
      await assert.rejects(identity.validateSession({ sessionToken: 'nonsense' }), { code: 16 });
    } finally {
      identity.close();
    }
    const session = await (await browser.fetch('/api/auth/get-session')).json();
    assert.equal(session.user.email, 'dokter@rs-demo.test');
    assert.equal(session.session.token, undefined, 'no raw token in JSON');
  });

  test('the code is valid for 300 s by default and stored under a keyed hash', async () => {
    const email = 'auditor@rs-demo.test';
    const since = f.smtp.messages.length;
    assert.equal((await f.client().post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 200);
    secrets.add(otpFrom(await f.smtp.waitForMail(email, since)));
    const keys = deriveKeys(f.authSecret);
    const name = KEY_PREFIX + hmac(keys.redisKeyName, `verification:sign-in-otp-${email}`);
    const ttl = await f.redis.client.ttl(name);
    assert.ok(ttl > 290 && ttl <= 300, `TTL ${ttl}`);
  });

  test("the mail speaks the language chosen in the dashboard (its simrs_lang cookie), else MAIL_LOCALE's", async () => {
    const english = f.client();
    english.cookies.set('simrs_lang', 'en');
    const since = f.smtp.messages.length;
    assert.equal(
      (await english.post('/api/auth/email-otp/send-verification-otp', { email: 'pendaftaran@rs-demo.test', type: 'sign-in' })).status,
      200,
    );
    assert.match((await f.smtp.waitForMail('pendaftaran@rs-demo.test', since)).subject, /^Your .* sign-in code$/);
    const link = await english.post('/api/auth/sign-in/magic-link', { email: 'pendaftaran@rs-demo.test', callbackURL: '/' });
    assert.equal(link.status, 200);
    assert.match(
      (await f.smtp.waitForMail('pendaftaran@rs-demo.test', since, (m) => /link/.test(m.subject))).subject,
      /^Your .* sign-in link$/,
    );
    const plain = f.client();
    const before = f.smtp.messages.length;
    assert.equal(
      (await plain.post('/api/auth/email-otp/send-verification-otp', { email: 'auditor@rs-demo.test', type: 'sign-in' })).status,
      200,
    );
    assert.match((await f.smtp.waitForMail('auditor@rs-demo.test', before)).subject, /^Kode masuk .* Anda$/);
  });

  test('a security notice speaks the language of the browser that caused it', async () => {
    const english = f.client();
    english.cookies.set('simrs_lang', 'en');
    await signInWithOtp(f, english, 'dokter@rs-demo.test');
    remember(english);
    const since = f.smtp.messages.length;
    assert.equal((await english.post('/api/auth/revoke-other-sessions', {})).status, 200);
    const notice = await f.smtp.waitForMail('dokter@rs-demo.test', since, (m) => /sessions/.test(m.subject) || /Sesi/.test(m.subject));
    assert.match(notice.subject, /^Your other .* sessions were signed out$/);
  });

  test('three wrong codes, then the right one fails', async () => {
    const email = 'perawat@rs-demo.test';
    const browser = f.client();
    const since = f.smtp.messages.length;
    assert.equal((await browser.post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 200);
    const otp = otpFrom(await f.smtp.waitForMail(email, since));
    secrets.add(otp);
    const wrong = otp === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) assert.equal((await browser.post('/api/auth/sign-in/email-otp', { email, otp: wrong })).status, 400);
    const res = await browser.post('/api/auth/sign-in/email-otp', { email, otp });
    assert.ok(res.status >= 400 && res.status < 500, `refused (${res.status})`);
    assert.equal(browser.cookies.get(COOKIE), undefined);
  });

  test('a magic link signs in once, lands on the dashboard, and a second use fails', async () => {
    const email = 'pendaftaran@rs-demo.test';
    const since = f.smtp.messages.length;
    const res = await f.client().post('/api/auth/sign-in/magic-link', { email });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: true });
    const link = new URL(linkFrom(await f.smtp.waitForMail(email, since)));
    assert.equal(link.origin, f.publicUrl, 'the link points at the public URL');
    const token = link.searchParams.get('token')!;
    secrets.add(token);
    const ttl = await f.redis.client.ttl(
      KEY_PREFIX + hmac(deriveKeys(f.authSecret).redisKeyName, `verification:${hmac(deriveKeys(f.authSecret).magicLink, token)}`),
    );
    assert.ok(ttl > 290 && ttl <= 300, `magic link TTL ${ttl}`);

    const browser = f.client();
    const first = await browser.fetch(link.pathname + link.search);
    assert.equal(first.status, 302);
    assert.equal(first.headers.get('location'), `${f.publicUrl}/`, 'the dashboard');
    assert.ok(browser.cookies.get(COOKIE), 'signed in');
    remember(browser);
    const session = await browser.fetch('/api/auth/get-session');
    assert.equal(session.status, 200);
    assert.match(await session.text(), /pendaftaran@rs-demo\.test/);

    const other = f.client();
    const second = await other.fetch(link.pathname + link.search);
    assert.equal(second.status, 302);
    assert.match(second.headers.get('location') ?? '', /\/masuk\?error=INVALID_TOKEN/, "the dashboard's sign-in page");
    assert.equal(other.cookies.get(COOKIE), undefined);
  });

  test('an unknown address gets the same status and body, no mail and no user row', async () => {
    const unknown = 'nobody@rs-demo.test';
    const known = 'admin@rs-demo.test';
    for (const [path, body] of [
      ['/api/auth/email-otp/send-verification-otp', { type: 'sign-in' }],
      ['/api/auth/sign-in/magic-link', {}],
    ] as const) {
      const since = f.smtp.messages.length;
      const a = await f.client().post(path, { ...body, email: unknown, name: 'Intruder' });
      const b = await f.client().post(path, { ...body, email: known });
      assert.equal(a.status, b.status, path);
      assert.equal(await a.text(), await b.text(), path);
      const mail = await f.smtp.waitForMail(known, since);
      secrets.add(mail.text.match(/\b\d{6}\b/)?.[0] ?? linkFrom(mail).split('token=')[1]!.split('&')[0]!);
      await sleep(300);
      assert.equal(f.smtp.to(unknown).length, 0, 'no mail to the unknown address');
    }
    const rows = await db.query('select 1 from "user" where email = $1', [unknown]);
    assert.equal(rows.rowCount, 0, 'no user row');
  });

  test('sends per address are limited, for unknown addresses exactly like known ones', async () => {
    // Five sends an hour per address (OTP_SENDS_PER_ADDRESS_PER_HOUR), then 429 for known and unknown alike.
    for (const email of ['admin@rs-lain.test', 'ghost@rs-demo.test']) {
      const statuses: number[] = [];
      // A new IP each time: the limit is per address.
      for (let i = 0; i < 6; i++)
        statuses.push((await f.client().post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], email);
    }
    const refused = await f.client().post('/api/auth/email-otp/send-verification-otp', { email: 'admin@rs-lain.test', type: 'sign-in' });
    assert.ok(Number(refused.headers.get('retry-after')) > 0, 'Retry-After set');
    const rest = await f.smtp.waitForMail('admin@rs-lain.test');
    secrets.add(otpFrom(rest));
  });

  test('password sign-in and every sign-up route are refused', async () => {
    const client = f.client();
    const signIn = await client.post('/api/auth/sign-in/email', { email: 'dokter@rs-demo.test', password: 'correct horse battery' });
    assert.equal(signIn.status, 403);
    assert.equal((await signIn.json()).error.data.reason, 'PASSWORD_SIGN_IN_DISABLED');
    for (const path of ['/api/auth/sign-up/email', '/api/auth/sign-up/anything']) {
      const res = await client.post(path, { email: 'new@rs-demo.test', password: 'correct horse battery', name: 'New' });
      assert.equal(res.status, 403, path);
      assert.equal((await res.json()).error.data.reason, 'SIGN_UP_DISABLED');
    }
    for (const path of ['/api/auth/request-password-reset', '/api/auth/email-otp/reset-password', '/api/auth/change-password'])
      assert.equal((await client.post(path, { email: 'dokter@rs-demo.test' })).status, 403, path);
    const otherType = await client.post('/api/auth/email-otp/send-verification-otp', {
      email: 'dokter@rs-demo.test',
      type: 'forget-password',
    });
    assert.equal(otherType.status, 400);
    // A sign-in code for an unknown address never becomes an account, whatever the body carries.
    const rows = await db.query('select 1 from "user" where email = $1', ['new@rs-demo.test']);
    assert.equal(rows.rowCount, 0);
  });

  test('Redis holds no session token, code or e-mail address in clear', async () => {
    const redis = f.redis.client;
    const dump: string[] = [];
    for (const key of await redis.keys('*')) {
      dump.push(key);
      const type = await redis.type(key);
      if (type === 'string') dump.push((await redis.get(key)) ?? '');
      else if (type === 'zset') dump.push(...(await redis.zrange(key, 0, -1)));
      else if (type === 'hash') dump.push(...Object.entries(await redis.hgetall(key)).flat());
      else if (type === 'list') dump.push(...(await redis.lrange(key, 0, -1)));
      else if (type === 'set') dump.push(...(await redis.smembers(key)));
    }
    assert.ok(dump.length > 10, 'Redis has data');
    const text = dump.join('\n');
    for (const secret of secrets) assert.ok(!text.includes(secret), `Redis holds ${secret.length > 12 ? 'a token' : secret} in clear`);
    assert.ok(!/@/.test(text), 'no e-mail address at all');
  });
});
