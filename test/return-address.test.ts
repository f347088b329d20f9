// Return addresses after sign-in, through the gateway in Chromium: the dashboard's sign-in page /masuk,
// opened directly and through the former address /auth/sign-in (which the gateway redirects to it, the
// query kept), with `next` or `callbackURL` given addresses that leave the site once a browser resolves
// them; and a mailed sign-in link whose callbackURL was changed. Every one ends on the site.
// The whole table of attacks is the unit test of safeReturnPath (packages/contracts); a few go through
// the browser here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { DASHBOARD } from '@simrs/contracts/dashboard';
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

/** The doctor's start page: where the dashboard sends a person whose return address was refused. */
const START_PAGE = '/antrean';

/**
 * Opens `path` in a fresh context, checks it shows the sign-in page with `param` (if given) still carrying
 * `value`, signs in with the mailed code and answers where the browser ended.
 * The other host answers from here (no DNS), so leaving the site shows as its URL, not as an error page.
 */
async function signInFrom(path: string, param?: string, value?: string): Promise<URL> {
  const context = await browser.newContext({ baseURL: stack.publicUrl });
  try {
    await context.route(
      (url) => url.hostname === EVIL,
      (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>phished</p>' }),
    );
    const page = await context.newPage();
    await page.goto(path);
    const shown = new URL(page.url());
    assert.equal(shown.pathname, DASHBOARD.signIn, `${path}: opened ${shown.href}`);
    if (param) assert.equal(shown.searchParams.get(param), value, `${path}: the query was not kept (${shown.href})`);
    const since = smtp.messages.length;
    await page.fill('#email', USER);
    await page.click('#send-otp');
    const otp = otpFrom((await smtp.waitForMail(USER, since, isOtpMail)).text);
    await page.fill('#otp', otp);
    await page.click('#verify-otp');
    const site = new URL(stack.publicUrl).origin;
    // The site root only sends a signed-in person on to their start page: not a place to end on.
    const stillSigningIn = (url: URL) => url.origin === site && (url.pathname === DASHBOARD.signIn || url.pathname === '/');
    // Bounded: a page that refuses to move on is a failure reported below, not a 30 s timeout.
    await page.waitForURL((url) => !stillSigningIn(url), { timeout: 10_000 }).catch(() => {});
    await page.waitForLoadState('load');
    const landed = new URL(page.url());
    if (stillSigningIn(landed))
      assert.fail(
        `${path}: still on ${landed.pathname} after signing in (${await page
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

const ATTACKS = ['/.//evil.example', '/..//evil.example/phish', '/%2F%2Fevil.example', '/%5Cevil.example', 'https://evil.example/'];

describe('after signing in, a browser stays on the site', () => {
  for (const page of ['/auth/sign-in', DASHBOARD.signIn]) {
    test(`${page} with each attack in next and in callbackURL`, async () => {
      for (const param of ['next', 'callbackURL']) {
        for (const attack of ATTACKS) {
          const what = `${page}?${param}=${attack}`;
          const landed = await signInFrom(`${page}?${param}=${encodeURIComponent(attack)}`, param, attack);
          assertOnSite(landed, what);
          assert.equal(landed.pathname, START_PAGE, `${what}: the start page instead`);
        }
      }
    });
  }

  test('next is read before callbackURL: a refused next is not made up for by callbackURL', async () => {
    const path = `${DASHBOARD.signIn}?next=${encodeURIComponent(ATTACKS[0]!)}&callbackURL=${encodeURIComponent('/akun')}`;
    const landed = await signInFrom(path, 'next', ATTACKS[0]);
    assert.equal(landed.pathname, START_PAGE, `${path}: ended on ${landed.href}`);
  });

  test('a good return address is still followed, in next and in callbackURL, through either address', async () => {
    for (const [path, expected] of [
      [`/auth/sign-in?callbackURL=${encodeURIComponent('/akun?tab=x')}`, '/akun?tab=x'],
      [`/auth/sign-in?next=${encodeURIComponent('/pasien?q=a')}`, '/pasien?q=a'],
      [`${DASHBOARD.signIn}?next=${encodeURIComponent('/pasien?q=a')}`, '/pasien?q=a'],
      [`${DASHBOARD.signIn}?callbackURL=${encodeURIComponent(`${stack.publicUrl}/akun?tab=x`)}`, '/akun?tab=x'],
    ] as const) {
      const landed = await signInFrom(path);
      assert.equal(`${landed.pathname}${landed.search}`, expected, `${path}: ended on ${landed.href}`);
    }
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
