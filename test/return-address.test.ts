// Return addresses after sign-in, through the gateway in Chromium: identity's /auth/sign-in (`callbackURL`
// and `next`) and the dashboard's /masuk (`next`) given addresses that leave the site once a browser
// resolves them, and a mailed sign-in link whose callbackURL was changed. Every one ends on the site.
// The whole table of attacks is the unit test of safeReturnPath (packages/contracts); a few go through
// the browser here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { launchBrowser } from './support/browser.ts';
import { ensureDashboardBuilt } from './support/dashboard.ts';
import { isOtpMail, otpFrom, seedUsers } from './support/users.ts';

const TENANT = 'rs-return';
const USER = `dokter@${TENANT}.test`;
const EVIL = 'evil.example';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let browser: Browser;
let closeBrowser: () => Promise<void>;

before(async () => {
  ensureDashboardBuilt();
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_return_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: {
      identity: {
        OTP_SENDS_PER_ADDRESS_PER_HOUR: '100',
        OTP_SENDS_PER_ADDRESS_PER_DAY: '200',
        MAGIC_LINK_SENDS_PER_ADDRESS_PER_HOUR: '100',
      },
    },
  });
  await seedUsers(stack, [{ email: USER, tenant: TENANT, role: 'doctor' }]);
  ({ browser, close: closeBrowser } = await launchBrowser());
});

after(async () => {
  await closeBrowser?.();
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

/**
 * Opens `path` in a fresh context, signs in with the mailed code and answers where the browser ended.
 * The other host answers from here (no DNS), so leaving the site shows as its URL, not as an error page.
 */
async function signInFrom(path: string, signInPath: string): Promise<URL> {
  const context = await browser.newContext({ baseURL: stack.publicUrl });
  try {
    await context.route(
      (url) => url.hostname === EVIL,
      (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>phished</p>' }),
    );
    const page = await context.newPage();
    await page.goto(path);
    const since = smtp.messages.length;
    await page.fill('#email', USER);
    await page.click('#send-otp');
    const otp = otpFrom((await smtp.waitForMail(USER, since, isOtpMail)).text);
    await page.fill('#otp', otp);
    await page.click('#verify-otp');
    const stillSigningIn = (url: URL) => url.origin === new URL(stack.publicUrl).origin && url.pathname === signInPath;
    // Bounded: a page that refuses to move on is a failure reported below, not a 30 s timeout.
    await page.waitForURL((url) => !stillSigningIn(url), { timeout: 10_000 }).catch(() => {});
    // A router may take one more step (the dashboard's start page): let it settle.
    await page.waitForLoadState('load');
    const landed = new URL(page.url());
    if (stillSigningIn(landed))
      assert.fail(
        `${path}: still on the sign-in page after signing in (${await page
          .locator('#status')
          .textContent({ timeout: 1000 })
          .catch(() => 'no status')})`,
      );
    return landed;
  } finally {
    await context.close();
  }
}

function assertOnSite(url: URL, what: string): void {
  assert.equal(url.origin, new URL(stack.publicUrl).origin, `${what}: ended on ${url.href}`);
  assert.doesNotMatch(url.pathname, /^\/[/\\]/, `${what}: ended on ${url.href}`);
}

const ATTACKS = ['/.//evil.example', '/..//evil.example/phish', '/%2F%2Fevil.example', '/%5Cevil.example'];

describe('after signing in, a browser stays on the site', () => {
  test("identity's sign-in page: callbackURL and next", async () => {
    for (const [name, attack] of [
      ['callbackURL', ATTACKS[0]],
      ['next', ATTACKS[1]],
      ['callbackURL', ATTACKS[2]],
      ['next', ATTACKS[3]],
    ] as const) {
      const what = `/auth/sign-in?${name}=${attack}`;
      const landed = await signInFrom(`/auth/sign-in?${name}=${encodeURIComponent(attack!)}`, '/auth/sign-in');
      assertOnSite(landed, what);
      assert.equal(landed.pathname, '/auth/account', `${what}: the account page instead`);
    }
  });

  test("the dashboard's sign-in page: next", async () => {
    for (const attack of [ATTACKS[0], ATTACKS[1], ATTACKS[3], 'https://evil.example/']) {
      const what = `/masuk?next=${attack}`;
      const landed = await signInFrom(`/masuk?next=${encodeURIComponent(attack!)}`, '/masuk');
      assertOnSite(landed, what);
    }
  });

  test('a good return address is still followed', async () => {
    const landed = await signInFrom(`/auth/sign-in?callbackURL=${encodeURIComponent('/auth/account?tab=x')}`, '/auth/sign-in');
    assert.equal(`${landed.pathname}${landed.search}`, '/auth/account?tab=x');
    const dashboard = await signInFrom(`/masuk?next=${encodeURIComponent('/pasien?q=a')}`, '/masuk');
    assert.equal(`${dashboard.pathname}${dashboard.search}`, '/pasien?q=a');
  });
});

const post = (path: string, body: unknown) =>
  fetch(`${stack.gatewayUrl}/api/auth${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: stack.publicUrl },
    body: JSON.stringify(body),
  });

describe('sign-in links', () => {
  test('a link is not sent with a return address that leaves the site', async () => {
    for (const callbackURL of ['/.//evil.example', '/..//evil.example']) {
      const res = await post('/sign-in/magic-link', { email: USER, callbackURL });
      assert.equal(res.status, 403, `${callbackURL}: ${res.status} ${await res.text()}`);
    }
  });

  test('a link whose callbackURL or errorCallbackURL was changed still lands on the site', async () => {
    const since = smtp.messages.length;
    assert.equal((await post('/sign-in/magic-link', { email: USER, callbackURL: '/pasien' })).status, 200);
    const mail = await smtp.waitForMail(USER, since, (m) => /magic-link\/verify/.test(m.text));
    const link = new URL(/https?:\/\/\S+magic-link\/verify\S+/.exec(mail.text)![0]);
    link.searchParams.set('callbackURL', '/.//evil.example');
    link.searchParams.set('errorCallbackURL', '/..//evil.example');
    const open = async () => {
      const res = await fetch(`${stack.gatewayUrl}${link.pathname}${link.search}`, { redirect: 'manual' });
      await res.arrayBuffer();
      assert.equal(res.status, 302);
      return new URL(res.headers.get('location')!, stack.publicUrl);
    };
    const first = await open();
    assertOnSite(first, 'a changed callbackURL');
    const again = await open(); // spent: the error callback
    assertOnSite(again, 'a changed errorCallbackURL');
    assert.equal(again.searchParams.get('error'), 'INVALID_TOKEN');
  });
});
