// The staff dashboard in Chromium, against the whole stack through the gateway: every role's flows,
// sign-in by e-mail code (keyboard only), magic link and passkey autofill, axe-core on every page,
// and phone and tablet viewports without sideways scrolling.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { testServerUrl, waitFor } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { addVirtualAuthenticator, launchBrowser } from './support/browser.ts';
import { checkPage, ensureDashboardBuilt, nikFor, registerPatients, ROLE_OF, signInContext, signInWithKeyboard, TENANT, USERS } from './support/dashboard.ts';
import { seedUsers, signInWithOtp } from './support/users.ts';

const BIDAN = `bidan@${TENANT}.test`;
let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let adminCookie: string;

before(async () => {
  ensureDashboardBuilt();
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_dashboard_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: { identity: { OTP_SENDS_PER_ADDRESS_PER_HOUR: '100', OTP_SENDS_PER_ADDRESS_PER_DAY: '200', MAGIC_LINK_SENDS_PER_ADDRESS_PER_HOUR: '100' } },
  });
  await seedUsers(stack, [
    ...(Object.keys(USERS) as (keyof typeof USERS)[]).map((k) => ({ email: USERS[k], tenant: TENANT, role: ROLE_OF[k] })),
    { email: BIDAN, tenant: TENANT, role: 'nurse' },
  ]);
  adminCookie = (await signInWithOtp(stack, smtp, USERS.admin)).cookie;
  await registerPatients(stack, adminCookie, 25);
  ({ browser, close: closeBrowser } = await launchBrowser());
});

after(async () => {
  await closeBrowser?.();
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

async function contextAs(email?: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: stack.publicUrl, viewport: { width: 1280, height: 900 }, ...options });
  if (email) await signInContext(stack, smtp, context, email);
  return { context, page: await context.newPage() };
}

/** Presses Tab until the element matching `selector` has focus: it is reachable by keyboard. */
async function tabTo(page: Page, selector: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} not reached with Tab`);
}

async function api(path: string, cookie: string, body?: unknown): Promise<{ status: number; json: { result?: { data?: unknown } } & Record<string, unknown> }> {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie, origin: stack.publicUrl, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as never };
}

interface Pasien {
  id: string;
  noRm: string;
  nik: string;
  nama: string;
  version: number;
  pekerjaan: string | null;
  telepon: string | null;
}

async function findPatient(q: string): Promise<Pasien> {
  const { json } = await api(`/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ q, limit: 1 }))}`, adminCookie);
  return (json.result!.data as { items: Pasien[] }).items[0]!;
}

describe('served by the gateway', () => {
  test('the app at the site root and its client routes; the API, auth pages and playground keep theirs', async () => {
    for (const path of ['/', '/masuk', '/pasien', '/pasien/baru', '/pasien/0b7c4c1e-1111-4222-8333-944455556666', '/akun', '/admin/pengguna', '/audit']) {
      const res = await fetch(`${stack.gatewayUrl}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(await res.text(), /<div id="root"><\/div>/, path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
    }
    const html = await (await fetch(`${stack.gatewayUrl}/`)).text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${stack.gatewayUrl}${asset}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${stack.gatewayUrl}/trpc/healthCheck`)).status, 200);
    assert.match(await (await fetch(`${stack.gatewayUrl}/playground/`)).text(), /playground/i);
    assert.equal((await fetch(`${stack.gatewayUrl}/auth/sign-in`)).status, 200);
    const missing = await fetch(`${stack.gatewayUrl}/no-such-page`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { data: { code: string } } }).error.data.code, 'NOT_FOUND');
    assert.equal((await fetch(`${stack.gatewayUrl}/assets/nothing.js`)).status, 404);
  });
});

describe('sign-in', () => {
  test('a clerk signs in with an e-mailed code using only the keyboard and lands on the patients; sign-out is visible', async () => {
    const { context, page } = await contextAs();
    try {
      await page.goto('/pasien');
      await page.waitForURL('**/masuk?next=%2Fpasien');
      await checkPage(page, 'sign-in');
      await signInWithKeyboard(page, smtp, USERS.clerk);
      assert.equal(new URL(page.url()).pathname, '/pasien');
      await page.locator('#patient-table').waitFor();
      assert.equal(await page.textContent('#current-role'), 'Petugas pendaftaran');
      await tabTo(page, '#sign-out');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/masuk');
      await page.goto('/pasien');
      await page.waitForURL('**/masuk?next=%2Fpasien');
    } finally {
      await context.close();
    }
  });

  test('a wrong code is explained in Indonesian, not "Invalid OTP"', async () => {
    const { context, page } = await contextAs();
    try {
      await page.goto('/masuk');
      await page.fill('#email', USERS.nurse);
      const since = smtp.messages.length;
      await page.click('#send-otp');
      await smtp.waitForMail(USERS.nurse, since);
      await page.fill('#otp', '000000');
      await page.click('#verify-otp');
      await page.locator('#status', { hasText: 'Kode salah' }).waitFor();
      assert.doesNotMatch((await page.textContent('#status')) ?? '', /Invalid OTP/);
    } finally {
      await context.close();
    }
  });

  test('a magic link lands straight in the dashboard', async () => {
    const { context, page } = await contextAs();
    try {
      await page.goto('/masuk');
      await page.fill('#email', USERS.doctor);
      const since = smtp.messages.length;
      await page.click('#send-magic-link');
      await page.locator('#status', { hasText: 'tautan masuk' }).waitFor();
      const mail = await smtp.waitForMail(USERS.doctor, since, (m) => /magic-link\/verify/.test(m.text));
      const link = /(https?:\/\/\S+magic-link\/verify\S+)/.exec(mail.text)![1]!;
      await page.goto(link);
      await page.waitForURL('**/pasien');
      await page.locator('#patient-table').waitFor();
      assert.equal(await page.textContent('#current-role'), 'Dokter');
    } finally {
      await context.close();
    }
  });

  test('a passkey added on the account page signs in through autofill (conditional UI), without a click', async () => {
    const { context, page } = await contextAs(USERS.nurse);
    try {
      const authenticator = await addVirtualAuthenticator(context, page);
      await page.goto('/akun');
      await page.fill('#passkey-name', 'Tablet bangsal');
      await page.click('#add-passkey');
      await page.locator('#passkey-list .passkey-name', { hasText: 'Tablet bangsal' }).waitFor();
      assert.equal((await authenticator.credentials()).length, 1);
      await page.click('#sign-out');
      await page.waitForURL('**/masuk');
      const seen: string[] = [];
      page.on('request', (r) => seen.push(new URL(r.url()).pathname));
      await page.reload();
      // Nothing is clicked: the browser offers the passkey in the e-mail field's autofill, and the
      // virtual authenticator (automatic presence) accepts it.
      await page.waitForURL('**/pasien', { timeout: 20_000 });
      assert.ok(seen.includes('/api/auth/passkey/verify-authentication'), seen.join('\n'));
      assert.equal(await page.textContent('#current-role'), 'Perawat');
    } finally {
      await context.close();
    }
  });
});
