// Sign-in by e-mail against the real processes: identity, the notifier and an SMTP peer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createClient } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { deriveKeys, hmac } from './keys.ts';
import { KEY_PREFIX } from './storage.ts';
import { linkFrom, otpFrom, signInWithOtp, startFixture } from './test-harness.ts';
import type { Fixture } from './test-harness.ts';

const COOKIE = 'simrs.session_token';

describe('sign-in by e-mail', () => {
  let f: Fixture;
  before(async () => {
    f = await startFixture('signin');
  });
  after(async () => {
    await f?.stop();
  });

  test('a 6-digit code from the mail signs in, and ValidateSession knows the session', async () => {
    const browser = f.client();
    await signInWithOtp(f, browser, 'dokter@rs-demo.test');
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
    } finally {
      identity.close();
    }
    const session = await (await browser.fetch('/api/auth/get-session')).json();
    assert.equal(session.user.email, 'dokter@rs-demo.test');
    assert.equal(session.session.token, undefined, 'no raw token in JSON');
  });

  test('three wrong codes, then the right one fails', async () => {
    const email = 'perawat@rs-demo.test';
    const browser = f.client();
    const since = f.smtp.messages.length;
    assert.equal((await browser.post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 200);
    const otp = otpFrom(await f.smtp.waitFor(email, since));
    const wrong = otp === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) assert.equal((await browser.post('/api/auth/sign-in/email-otp', { email, otp: wrong })).status, 400);
    const res = await browser.post('/api/auth/sign-in/email-otp', { email, otp });
    assert.ok(res.status >= 400 && res.status < 500, `refused (${res.status})`);
    assert.equal(browser.cookies.get(COOKIE), undefined);
  });
});
