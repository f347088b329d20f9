// The device authorization grant (RFC 8628) end to end through the gateway: the seed's exact answer
// from POST /api/auth/device/code and its errors, polling (authorization_pending, slow_down), approval
// on the dashboard's verification page (/perangkat) in Chromium by keyboard, checked by axe-core at phone
// and tablet sizes, the token and an API call with it; denial, expiry (a short
// DEVICE_CODE_TTL_SECONDS), a code bound to one user with user_id, another hospital's user, the rate
// limit on guessing user codes, and the removal of codes their device stopped polling.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import pg from 'pg';
import { ROLE_CLAIM, TENANT_CLAIM } from '@simrs/contracts/oauth';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { launchBrowser } from './support/browser.ts';
import { assertAccessibleOnPhoneAndTablet } from './support/dashboard.ts';
import type { Browser, Page } from 'playwright-core';
import { apiQuery, Browserless, DEVICE_CODE_GRANT, issueRegistrationToken, registerClient } from './support/oauth.ts';
import type { RegisteredClient } from './support/oauth.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { isOtpMail, otpFrom, seedUsers } from './support/users.ts';

const TTL_SECONDS = 12;
const GUESSES_PER_USER = 8;
const TENANT = 'rs-device';
const USERS = {
  admin: 'admin@rs-device.test',
  doctor: 'dokter@rs-device.test',
  nurse: 'perawat@rs-device.test',
  midwife: 'bidan@rs-device.test',
  guesser: 'tamu@rs-device.test',
  other: 'dokter@rs-lain.test',
};

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let device: RegisteredClient;
let readOnlyScopes: string;
let browser: { browser: Browser; close(): Promise<void> };
let page: Page;

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_device_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: {
      identity: {
        DEVICE_CODE_TTL_SECONDS: String(TTL_SECONDS),
        DEVICE_POLL_INTERVAL_SECONDS: '1',
        DEVICE_VERIFY_LIMIT_PER_USER_PER_HOUR: String(GUESSES_PER_USER),
        // Expired rows are swept every second, so that a test sees it happen.
        EXPIRED_ROWS_SWEEP_SECONDS: '1',
        // This stack signs access tokens RS256 (the setting a resource server that accepts only RS256
        // needs); the other OAuth suites run the EdDSA default. The gateway must take either.
        ACCESS_TOKEN_SIGNING_ALG: 'RS256',
      },
    },
  });
  await seedUsers(stack, [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
    { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
    { email: USERS.midwife, tenant: TENANT, role: 'nurse' },
    { email: USERS.guesser, tenant: TENANT, role: 'nurse' },
    { email: USERS.other, tenant: 'rs-lain', role: 'doctor' },
  ]);
  // A CLI on a device: a public client that only uses the device grant.
  device = await registerClient(stack, await issueRegistrationToken(stack, USERS.admin), {
    client_name: 'Terminal Bangsal',
    token_endpoint_auth_method: 'none',
    grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
  });
  readOnlyScopes = device.metadata.scope as string;
  browser = await launchBrowser();
  page = await (await browser.browser.newContext({ baseURL: stack.publicUrl })).newPage();
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

interface DeviceGrant {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** POST /api/auth/device/code as the seed describes it (JSON body). */
async function requestCode(body: Record<string, string>): Promise<Response> {
  return fetch(`${stack.gatewayUrl}/api/auth/device/code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function newCode(extra: Record<string, string> = {}): Promise<DeviceGrant> {
  const res = await requestCode({ client_id: device.clientId, ...extra });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as DeviceGrant;
}

/** One poll of the token endpoint, as the device does it. */
async function poll(grant: DeviceGrant): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: DEVICE_CODE_GRANT, device_code: grant.device_code, client_id: device.clientId }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Signs the Chromium page in on the dashboard by e-mail code (the device page needs a signed-in person). */
async function signInChromium(email: string): Promise<void> {
  await page.goto('/masuk');
  const since = smtp.messages.length;
  await page.fill('#email', email);
  await page.click('#send-otp');
  const mail = await smtp.waitForMail(email, since, isOtpMail);
  await page.fill('#otp', otpFrom(mail.text));
  await page.click('#verify-otp');
  await page.waitForURL((url) => !url.pathname.startsWith('/masuk'));
}

/** What the verification page asks identity for a user code, with this person's session (JSON, no page). */
const lookUp = (person: Browserless, userCode: string) => person.fetch(`/api/auth/device?user_code=${encodeURIComponent(userCode)}`);

const scopesShown = (page: Page) => page.locator('#scope-list li').evaluateAll((items) => items.map((li) => li.getAttribute('data-scope')));

describe('POST /api/auth/device/code', () => {
  test("answers exactly the seed's fields, for JSON and for form bodies", async () => {
    const res = await requestCode({ client_id: device.clientId, scope: 'openid simrs:read' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('cache-control') ?? '', /no-store/);
    const grant = (await res.json()) as DeviceGrant;
    assert.deepEqual(Object.keys(grant).sort(), [
      'device_code',
      'expires_in',
      'interval',
      'user_code',
      'verification_uri',
      'verification_uri_complete',
    ]);
    assert.equal(typeof grant.device_code, 'string');
    assert.ok(grant.device_code.length >= 43, 'a long random device code');
    assert.match(grant.user_code, /^[A-Z0-9]{8}$/);
    assert.equal(grant.verification_uri, `${stack.publicUrl}/perangkat`);
    assert.equal(grant.verification_uri_complete, `${stack.publicUrl}/perangkat?user_code=${grant.user_code}`);
    assert.equal(grant.expires_in, TTL_SECONDS);
    assert.equal(grant.interval, 1);

    const form = await fetch(`${stack.gatewayUrl}/api/auth/device/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: device.clientId }),
    });
    assert.equal(form.status, 200);
    assert.deepEqual(Object.keys(await form.json()).sort(), Object.keys(grant).sort());
  });

  test('errors are {error, error_description}: a missing client_id, an unknown one, a scope the client may not have', async () => {
    for (const [body, error] of [
      [{}, 'invalid_request'],
      [{ scope: 'openid' }, 'invalid_request'],
      [{ client_id: 'no-such-client' }, 'invalid_client'],
      [{ client_id: device.clientId, scope: 'openid simrs:write' }, 'invalid_scope'],
    ] as const) {
      const res = await requestCode(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const answer = (await res.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(answer).sort(), ['error', 'error_description'], JSON.stringify(answer));
      assert.equal(answer.error, error, JSON.stringify(body));
      assert.equal(typeof answer.error_description, 'string');
    }
  });
});

describe('the device flow', () => {
  test('pending, slow_down, approval on the verification page in Chromium, the token and an API call', async () => {
    await signInChromium(USERS.doctor);
    const config = device.config;
    const grant = await client.initiateDeviceAuthorization(config, { scope: 'openid profile simrs:read offline_access' });
    assert.equal(grant.verification_uri, `${stack.publicUrl}/perangkat`);

    const first = await poll(grant as unknown as DeviceGrant);
    assert.equal(first.status, 400);
    assert.equal(first.body.error, 'authorization_pending');
    const tooSoon = await poll(grant as unknown as DeviceGrant);
    assert.equal(tooSoon.body.error, 'slow_down', 'polled again within the interval');
    await sleep(1100);
    assert.equal((await poll(grant as unknown as DeviceGrant)).body.error, 'authorization_pending');

    // The person types the code shown on the device into the verification page, keyboard only.
    await page.goto(grant.verification_uri);
    await page.locator('[name="user_code"]').focus();
    await page.keyboard.type(grant.user_code.toLowerCase().replace(/^(....)/, '$1-'));
    await page.keyboard.press('Enter');
    await page.locator('#device-approve').waitFor();
    await page.locator('#device-client', { hasText: 'Terminal Bangsal' }).waitFor();
    assert.deepEqual(await scopesShown(page), ['openid', 'profile', 'simrs:read', 'offline_access']);
    await assertAccessibleOnPhoneAndTablet(page, 'device approval');
    await page.locator('#device-approve').focus();
    await page.keyboard.press('Enter');
    // Indonesian unless the dashboard chose English.
    await page.locator('#device-status', { hasText: 'Disetujui' }).waitFor();

    const tokens = await client.pollDeviceAuthorizationGrant(config, grant);
    assert.equal(decodeProtectedHeader(tokens.access_token).alg, 'RS256', 'ACCESS_TOKEN_SIGNING_ALG=RS256');
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims[TENANT_CLAIM], TENANT);
    assert.equal(claims[ROLE_CLAIM], 'doctor');
    assert.equal(claims.azp, device.clientId);
    assert.equal(claims.scope, 'openid profile simrs:read offline_access');
    assert.ok(tokens.refresh_token);
    assert.equal((await apiQuery(stack, tokens.access_token)).status, 200);

    // The code is spent.
    const again = await poll(grant as unknown as DeviceGrant);
    assert.equal(again.body.error, 'invalid_grant');

    // Without a scope the device gets its client's scopes; refresh works for the device too.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    assert.equal(decodeProtectedHeader(refreshed.access_token).alg, 'RS256');
    assert.equal((await apiQuery(stack, refreshed.access_token)).status, 200);
  });

  test('denied on the page (opened from verification_uri_complete): the device gets access_denied', async () => {
    const grant = await newCode();
    await page.goto(grant.verification_uri_complete);
    assert.equal(await page.inputValue('[name="user_code"]'), grant.user_code, 'the code is filled in');
    await page.locator('#device-deny').waitFor();
    assert.deepEqual(await scopesShown(page), readOnlyScopes.split(' '), 'without a scope: the client’s scopes');
    await page.locator('#device-deny').focus();
    await page.keyboard.press('Enter');
    await page.locator('#device-status', { hasText: 'Ditolak' }).waitFor();
    const answer = await poll(grant);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'access_denied');
  });

  test('an expired code: expired_token for the device, and the page says so', async () => {
    const grant = await newCode();
    await sleep(TTL_SECONDS * 1000 + 500);
    await page.goto(grant.verification_uri_complete);
    await page.locator('.field-error', { hasText: 'kedaluwarsa' }).waitFor();
    const answer = await poll(grant);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'expired_token');
  });

  test('a code its device stopped polling is removed an hour after its expiry; within the hour the device is told expired_token', async () => {
    const [abandoned, late] = [await newCode(), await newCode()];
    const db = new pg.Client({ connectionString: stack.databases.identity });
    await db.connect();
    try {
      const rows = async () =>
        (
          await db.query<{ userCode: string }>(`select "userCode" from "deviceCode" where "userCode" = any($1)`, [
            [abandoned.user_code, late.user_code],
          ])
        ).rows
          .map((r) => r.userCode)
          .sort();
      assert.deepEqual(await rows(), [abandoned.user_code, late.user_code].sort());
      // As the device flows leave them: one expired two hours ago, one ten minutes ago.
      await db.query(
        `update "deviceCode" set "expiresAt" = now() - case when "userCode" = $1 then interval '2 hours' else interval '10 minutes' end
          where "userCode" = any($2)`,
        [abandoned.user_code, [abandoned.user_code, late.user_code]],
      );
      const deadline = Date.now() + 20_000;
      while ((await rows()).includes(abandoned.user_code)) {
        assert.ok(Date.now() < deadline, 'the sweep did not remove a code expired two hours ago');
        await sleep(200);
      }
      assert.deepEqual(await rows(), [late.user_code], 'a code within the hour past its expiry stays');
    } finally {
      await db.end();
    }
    const answer = await poll(late);
    assert.equal(answer.body.error, 'expired_token', JSON.stringify(answer.body));
  });

  test('with user_id only that user may approve', async () => {
    const nurse = new Browserless(stack);
    await nurse.signIn(smtp, USERS.nurse);
    const nurseId = ((await (await nurse.fetch('/api/auth/get-session')).json()) as { user: { id: string } }).user.id;
    const grant = await newCode({ user_id: nurseId, scope: 'openid simrs:read' });

    const midwife = new Browserless(stack);
    await midwife.signIn(smtp, USERS.midwife);
    // Bound to the nurse: the midwife is not told which application asks, nor for what.
    const seen = await lookUp(midwife, grant.user_code);
    assert.equal(seen.status, 200);
    assert.deepEqual(await seen.json(), { user_code: grant.user_code, status: 'pending' });
    const approve = await midwife.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: grant.user_code } });
    assert.equal(approve.status, 403);
    assert.equal(((await approve.json()) as { error: string }).error, 'access_denied');
    assert.equal((await poll(grant)).body.error, 'authorization_pending');

    const shown = await lookUp(nurse, grant.user_code);
    assert.equal(shown.status, 200);
    assert.equal(((await shown.json()) as { client_id?: string }).client_id, device.clientId);
    assert.equal((await nurse.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: grant.user_code } })).status, 200);
    await sleep(1100);
    const answer = await poll(grant);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(decodeJwt(answer.body.access_token as string).sub, nurseId);
  });

  test("a user of another hospital cannot take a code of this hospital's client", async () => {
    const grant = await newCode();
    const other = new Browserless(stack);
    await other.signIn(smtp, USERS.other);
    const seen = await lookUp(other, grant.user_code);
    assert.equal(seen.status, 403);
    assert.equal(((await seen.json()) as { error: string }).error, 'access_denied');
    const approve = await other.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: grant.user_code } });
    assert.equal(approve.status, 403);
    // Not bound to the stranger: a person of the hospital can still approve it.
    const doctor = new Browserless(stack);
    doctor.cookie =
      (await page.context().cookies()).filter((c) => c.name.endsWith('session_token')).map((c) => `${c.name}=${c.value}`)[0] ?? '';
    assert.equal((await lookUp(doctor, grant.user_code)).status, 200);
  });

  test('guessing user codes is rate limited per user (and per IP)', async () => {
    const guesser = new Browserless(stack);
    await guesser.signIn(smtp, USERS.guesser);
    const statuses: number[] = [];
    for (let i = 0; i < GUESSES_PER_USER + 2; i++) {
      const res = await lookUp(guesser, `WRONG${String(i).padStart(3, '0')}`);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses.slice(0, GUESSES_PER_USER), Array(GUESSES_PER_USER).fill(400));
    assert.deepEqual(statuses.slice(GUESSES_PER_USER), [429, 429]);
    const api = await guesser.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: 'WRONG999' } });
    assert.equal(api.status, 429);
    assert.ok(Number(api.headers.get('retry-after')) > 0);
  });
});
