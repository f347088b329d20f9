// Redis down under identity (sessions, codes and limits live there): what a caller gets is a 503 with
// Retry-After in the documented shape, never a 500, and readiness says so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signInWithOtp, startFixture } from '../testing/index.ts';
import type { Client, Fixture } from '../testing/index.ts';

describe('identity with Redis down', () => {
  let f: Fixture;
  let browser: Client;

  before(async () => {
    f = await startFixture('redisdown');
    browser = f.client();
    await signInWithOtp(f, browser, 'dokter@rs-demo.test');
    await f.redis.stop();
  });
  after(async () => {
    await f?.stop();
  });

  test('get-session answers 503 with Retry-After in the envelope, not 500', async () => {
    const res = await browser.fetch('/api/auth/get-session');
    assert.equal(res.status, 503, await res.clone().text());
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    const body = await res.json();
    assert.equal(body.error.data.code, 'SERVICE_UNAVAILABLE');
  });

  test('device/code answers 503 with Retry-After in RFC 6749 shape', async () => {
    const res = await f.client().post('/api/auth/device/code', { client_id: 'some-device', scope: 'openid' });
    assert.equal(res.status, 503, await res.clone().text());
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    assert.equal((await res.json()).error, 'temporarily_unavailable');
  });

  test('sending a code answers 503 too, and readiness says Redis is down', async () => {
    const res = await f.client().post('/api/auth/email-otp/send-verification-otp', { email: 'perawat@rs-demo.test', type: 'sign-in' });
    assert.equal(res.status, 503, await res.clone().text());
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    const ready = await fetch(`${f.httpUrl}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal((await ready.json()).checks.redis, 'down');
  });
});
