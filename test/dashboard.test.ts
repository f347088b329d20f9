// The staff dashboard in Chromium, against the whole stack through the gateway: the app served at the
// site root (and under its first-load budget), sign-in by e-mail code (keyboard only), magic link and
// passkey autofill, and the account page (sessions, passkeys, language), with axe-core on every page
// and phone and tablet viewports without sideways scrolling. The patients' flows are in
// dashboard-patients.test.ts, the tenant administrator's in dashboard-admin.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitFor } from '@simrs/platform/testing';
import { addVirtualAuthenticator } from './support/browser.ts';
import { checkPage, signInWithKeyboard, USERS } from './support/dashboard.ts';
import { contextAs, smtp, stack, tabTo, useDashboardStack } from './support/dashboard-suite.ts';
import { signInWithOtp } from './support/users.ts';
import { FIRST_LOAD_BUDGET_BYTES, firstLoad } from '../dashboard/first-load.ts';

useDashboardStack('dashboard');

describe('served by the gateway', () => {
  test('the app at the site root and its client routes; the API, auth pages and playground keep theirs', async () => {
    for (const path of [
      '/',
      '/masuk',
      '/pasien',
      '/pasien/baru',
      '/pasien/0b7c4c1e-1111-4222-8333-944455556666',
      '/akun',
      '/admin/pengguna',
      '/audit',
    ]) {
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
    // identity's former pages: a redirect to the dashboard's, the query kept (old links and device screens).
    const former = await fetch(`${stack.gatewayUrl}/auth/sign-in?error=INVALID_TOKEN`, { redirect: 'manual' });
    assert.equal(former.status, 302);
    assert.equal(former.headers.get('location'), '/masuk?error=INVALID_TOKEN');
    assert.equal((await fetch(`${stack.gatewayUrl}/auth/assets/sign-in.js`, { redirect: 'manual' })).status, 404);
    const missing = await fetch(`${stack.gatewayUrl}/no-such-page`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { data: { code: string } } }).error.data.code, 'NOT_FOUND');
    assert.equal((await fetch(`${stack.gatewayUrl}/assets/nothing.js`)).status, 404);
  });

  test('the first load stays under its budget (JavaScript and CSS, gzipped)', () => {
    const { files, gzipBytes } = firstLoad();
    assert.ok(files.some((f) => f.path.endsWith('.js')) && files.some((f) => f.path.endsWith('.css')));
    assert.ok(gzipBytes < FIRST_LOAD_BUDGET_BYTES, `${gzipBytes} bytes gzipped`);
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

  test("each role starts at its day's work: the clinics' queue, the front desk, the patients, the audit trail", async () => {
    const homes: Record<keyof typeof USERS, string> = {
      doctor: '/antrean',
      nurse: '/antrean',
      clerk: '/pendaftaran',
      admin: '/pasien',
      auditor: '/audit',
    };
    for (const [who, home] of Object.entries(homes) as [keyof typeof USERS, string][]) {
      const { context, page } = await contextAs(USERS[who]);
      try {
        await page.goto('/');
        await page.waitForURL(`**${home}`);
        await page.locator('h1').waitFor();
      } finally {
        await context.close();
      }
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
      // A doctor's day starts at the clinics' queue.
      await page.waitForURL('**/antrean');
      await page.getByRole('heading', { level: 1, name: 'Antrean poli' }).waitFor();
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
      const seen: string[] = [];
      const visited: string[] = [];
      page.on('request', (r) => seen.push(new URL(r.url()).pathname));
      page.on('framenavigated', (f) => f === page.mainFrame() && visited.push(new URL(f.url()).pathname));
      await page.click('#sign-out');
      // Nothing else is clicked: on the sign-in page the browser offers the passkey in the e-mail
      // field's autofill, and the virtual authenticator (automatic presence) accepts it.
      await waitFor(
        'signed in again through autofill',
        async () => seen.includes('/api/auth/passkey/verify-authentication') && new URL(page.url()).pathname === '/antrean',
        20_000,
      );
      assert.ok(visited.includes('/masuk'), visited.join(' '));
      assert.ok(!seen.includes('/api/auth/email-otp/send-verification-otp'));
      await page.locator('#current-role').waitFor();
      assert.equal(await page.textContent('#current-role'), 'Perawat');
    } finally {
      await context.close();
    }
  });
});

describe('my account', () => {
  const IPHONE =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

  test('sessions by device and browser, end one and every other; passkeys rename and delete; language', async () => {
    // Both sign in on the dashboard's page, so that identity records each browser's user agent.
    const phone = await contextAs(undefined, { userAgent: IPHONE });
    const desk = await contextAs();
    try {
      await phone.page.goto('/masuk');
      await signInWithKeyboard(phone.page, smtp, USERS.doctor);
      await phone.page.waitForURL('**/antrean');
      const { page, context } = desk;
      await page.goto('/masuk');
      await signInWithKeyboard(page, smtp, USERS.doctor);
      await page.goto('/akun');
      await page
        .locator('#session-list li')
        .first()
        .waitFor({ timeout: 5000 })
        .catch(async (err) => {
          console.error('DEBUG', page.url(), (await page.content()).slice(0, 3000));
          throw err;
        });
      const phoneRow = page.locator('#session-list li', { hasText: 'Safari 17 di iOS 17.5' });
      await page.locator('#session-list li').first().waitFor();
      await phoneRow.waitFor({ timeout: 5000 }).catch(async (err) => {
        console.error(await page.textContent('#session-list'));
        throw err;
      });
      assert.match((await phoneRow.textContent()) ?? '', /ponsel/);
      await page.locator('#session-list li[data-current="true"]', { hasText: / di Linux/ }).waitFor();
      await checkPage(page, 'account');
      await phoneRow.locator('.revoke-session').click();
      await page.locator('#account-status', { hasText: 'Sesi diakhiri' }).waitFor();
      await phone.page.getByRole('navigation').getByRole('link', { name: 'Pasien', exact: true }).click();
      await phone.page.waitForURL('**/masuk**', { timeout: 10_000 });

      await signInWithOtp(stack, smtp, USERS.doctor); // one more session elsewhere
      await page.reload();
      await page.click('#revoke-other-sessions');
      await page.locator('dialog[open] button[type="submit"]').click();
      await page.locator('#account-status', { hasText: 'Semua sesi lain diakhiri' }).waitFor();
      await waitFor('only this session listed', async () => (await page.locator('#session-list li').count()) === 1, 10_000);

      await addVirtualAuthenticator(context, page);
      await page.click('#add-passkey');
      await page.locator('#passkey-list .passkey-name').waitFor();
      await page.click('#passkey-list .rename-passkey');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('Laptop IGD');
      await page.keyboard.press('Enter');
      await page.locator('#passkey-list .passkey-name', { hasText: 'Laptop IGD' }).waitFor();
      await page.click('#passkey-list .delete-passkey');
      await page.locator('dialog[open]', { hasText: 'Laptop IGD' }).waitFor();
      await page.locator('dialog[open] button[type="submit"]').click();
      await page.locator('#passkey-list .empty').waitFor();

      await page.locator('#language-title ~ .language select').selectOption('en');
      await page.locator('h1', { hasText: 'My account' }).waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.ok(
        (await context.cookies()).some((c) => c.name === 'simrs_lang' && c.value === 'en'),
        'remembered for identity too',
      );
      await page.goto('/pasien');
      await page.locator('h1', { hasText: 'Patients' }).waitFor();
      await checkPage(page, 'patients-en');
      // The device page (identity's verification_uri) follows the same choice.
      await page.goto('/perangkat');
      await page.locator('h1', { hasText: 'Connect a device' }).waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
    } finally {
      await phone.context.close();
      await desk.context.close();
    }
  });

  test('the device page refuses an unknown code in place', async () => {
    const { context, page } = await contextAs(USERS.doctor);
    try {
      await page.goto('/perangkat');
      await page.fill('[name="user_code"]', 'ZZZZZZZZ');
      await page.click('#device-lookup');
      await page.locator('.field-error').waitFor();
      await checkPage(page, 'device');
    } finally {
      await context.close();
    }
  });
});
