// Expired codes and links, with TTLs shortened through the settings (the defaults are checked in
// signin.int.test.ts).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { linkFrom, otpFrom, startFixture } from '../testing/index.ts';
import type { Fixture } from '../testing/index.ts';

describe('expiry', () => {
  let f: Fixture;
  before(async () => {
    f = await startFixture('expiry', { OTP_TTL_SECONDS: '2', MAGIC_LINK_TTL_SECONDS: '2' });
  });
  after(async () => {
    await f?.stop();
  });

  test('an expired code does not sign in', async () => {
    const email = 'dokter@rs-demo.test';
    const browser = f.client();
    const since = f.smtp.messages.length;
    assert.equal((await browser.post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).status, 200);
    const otp = otpFrom(await f.smtp.waitForMail(email, since));
    await sleep(3_000);
    const res = await browser.post('/api/auth/sign-in/email-otp', { email, otp });
    assert.equal(res.status, 400);
    assert.equal(browser.cookies.get('simrs.session_token'), undefined);
  });

  test('an expired magic link does not sign in', async () => {
    const email = 'perawat@rs-demo.test';
    const since = f.smtp.messages.length;
    assert.equal((await f.client().post('/api/auth/sign-in/magic-link', { email })).status, 200);
    const link = new URL(linkFrom(await f.smtp.waitForMail(email, since)));
    await sleep(3_000);
    const browser = f.client();
    const res = await browser.fetch(link.pathname + link.search);
    assert.equal(res.status, 302);
    assert.match(res.headers.get('location') ?? '', /\/auth\/sign-in\?error=INVALID_TOKEN/);
    assert.equal(browser.cookies.get('simrs.session_token'), undefined);
  });
});
