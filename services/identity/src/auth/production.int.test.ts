// Production-shaped settings: an https public URL with a cookie domain (the __Secure- cookie and its
// flags), and tight limits to watch the per-IP and per-address bounds hold.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { otpFrom, startFixture } from '../testing/index.ts';
import type { Fixture } from '../testing/index.ts';

describe('https and tight limits', () => {
  let f: Fixture;
  before(async () => {
    f = await startFixture('prod', {
      PUBLIC_URL: 'https://simrs.example.test',
      COOKIE_DOMAIN: 'simrs.example.test',
      CORS_ALLOWED_ORIGINS: 'https://dashboard.simrs.example.test',
      SEND_LIMIT_PER_IP_PER_HOUR: '4',
      OTP_SENDS_PER_ADDRESS_PER_HOUR: '2',
      OTP_SENDS_PER_ADDRESS_PER_DAY: '2',
    });
  });
  after(async () => {
    await f?.stop();
  });

  test('the session cookie is __Secure-, HttpOnly, Secure, SameSite=Lax, on the cookie domain', async () => {
    const email = 'dokter@rs-demo.test';
    const browser = f.client();
    const since = f.smtp.messages.length;
    assert.equal((await browser.post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 200);
    const otp = otpFrom(await f.smtp.waitForMail(email, since));
    const res = await browser.post('/api/auth/sign-in/email-otp', { email, otp });
    assert.equal(res.status, 200);
    const line = res.headers.getSetCookie().find((c) => c.startsWith('__Secure-simrs.session_token='));
    assert.ok(line, `set-cookie: ${res.headers.getSetCookie().join(' | ')}`);
    const attrs = line.split(';').map((a) => a.trim().toLowerCase());
    for (const expected of ['httponly', 'secure', 'samesite=lax', 'domain=simrs.example.test', 'path=/'])
      assert.ok(attrs.includes(expected), `${expected} in ${line}`);
    const identity = createClient(IdentityService, f.grpcAddress);
    try {
      const value = browser.cookies.get('__Secure-simrs.session_token')!;
      assert.equal((await identity.validateSession({ sessionToken: value })).principal?.role, 'doctor');
    } finally {
      identity.close();
    }
    // An allow-listed origin other than the public URL is trusted too.
    const fromDashboard = await browser.fetch('/api/auth/update-session', {
      body: { theme: 'dark' },
      headers: { origin: 'https://dashboard.simrs.example.test' },
    });
    assert.equal(fromDashboard.status, 200);
  });

  test('sends per client IP are limited whatever the address', async () => {
    const client = f.client();
    const statuses = [];
    for (const user of ['a', 'b', 'c', 'd', 'e'])
      statuses.push((await client.post('/api/auth/sign-in/magic-link', { email: `${user}@elsewhere.test` })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
  });

  test('guesses per address are bounded by 3 x sends, even across new codes', async () => {
    const email = 'perawat@rs-demo.test';
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      assert.equal((await f.client().post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 200);
      for (let i = 0; i < 3; i++) statuses.push((await f.client().post('/api/auth/sign-in/email-otp', { email, otp: '000000' })).status);
    }
    assert.ok(
      statuses.every((s) => s === 400 || s === 403),
      `wrong codes: ${statuses}`,
    );
    // The send limit (2 per hour here) stops a third code, and the verify limit (3 x 2) stops guessing.
    assert.equal((await f.client().post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 429);
    assert.equal((await f.client().post('/api/auth/sign-in/email-otp', { email, otp: '000000' })).status, 429);
  });
});
