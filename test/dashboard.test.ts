// The staff dashboard in Chromium, against the whole stack through the gateway: every role's flows,
// sign-in by e-mail code (keyboard only), magic link and passkey autofill, axe-core on every page,
// and phone and tablet viewports without sideways scrolling.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testServerUrl, waitFor } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { addVirtualAuthenticator, launchBrowser } from './support/browser.ts';
import {
  checkPage,
  ensureDashboardBuilt,
  nikFor,
  openContext,
  registerPatients,
  ROLE_OF,
  signInWithKeyboard,
  TENANT,
  USERS,
} from './support/dashboard.ts';
import { seedUsers, signInWithOtp } from './support/users.ts';
import { FIRST_LOAD_BUDGET_BYTES, firstLoad } from '../dashboard/first-load.ts';

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
    env: {
      identity: {
        OTP_SENDS_PER_ADDRESS_PER_HOUR: '100',
        OTP_SENDS_PER_ADDRESS_PER_DAY: '200',
        MAGIC_LINK_SENDS_PER_ADDRESS_PER_HOUR: '100',
      },
    },
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

const contextAs = (email?: string, options: Parameters<Browser['newContext']>[0] = {}) =>
  openContext({ browser, stack, smtp }, email, options);

/** Presses Tab until the element matching `selector` has focus: it is reachable by keyboard. */
async function tabTo(page: Page, selector: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} not reached with Tab`);
}

async function api(
  path: string,
  cookie: string,
  body?: unknown,
): Promise<{ status: number; json: { result?: { data?: unknown } } & Record<string, unknown> }> {
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
      const seen: string[] = [];
      const visited: string[] = [];
      page.on('request', (r) => seen.push(new URL(r.url()).pathname));
      page.on('framenavigated', (f) => f === page.mainFrame() && visited.push(new URL(f.url()).pathname));
      await page.click('#sign-out');
      // Nothing else is clicked: on the sign-in page the browser offers the passkey in the e-mail
      // field's autofill, and the virtual authenticator (automatic presence) accepts it.
      await waitFor(
        'signed in again through autofill',
        async () => seen.includes('/api/auth/passkey/verify-authentication') && new URL(page.url()).pathname === '/pasien',
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

describe('patients', () => {
  test('a clerk registers a patient with the keyboard (field messages from the API, translated, in place) and finds them by name, NIK and MRN', async () => {
    const { context, page } = await contextAs(USERS.clerk);
    try {
      await page.goto('/pasien');
      await page.locator('#patient-table').waitFor();
      await checkPage(page, 'patients');
      await tabTo(page, '#register-patient');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/pasien/baru');
      await page.locator('#patient-form').waitFor();
      await checkPage(page, 'register');

      // Nothing filled in: every required field says so, in Indonesian, beside the field.
      await tabTo(page, '#save-patient');
      await page.keyboard.press('Enter');
      await page.locator('#error-summary').waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'focus moves to the summary');
      const message = (name: string) =>
        page.locator(`[name="${name}"]`).evaluate((el) => {
          const ids = (el.getAttribute('aria-describedby') ?? '').split(' ');
          return ids.map((id) => document.getElementById(id)).find((e) => e?.classList.contains('field-error'))?.textContent ?? '';
        });
      assert.equal(await message('nama'), 'Wajib diisi.');
      assert.equal(await page.locator('[name="nama"]').getAttribute('aria-invalid'), 'true');
      await checkPage(page, 'register-errors');

      // A NIK whose date disagrees with the birth date: records' own message, translated.
      const typeInto = async (name: string, text: string) => {
        await tabTo(page, `[name="${name}"]`);
        await page.keyboard.press('ControlOrMeta+a');
        await page.keyboard.type(text);
      };
      await typeInto('nik', nikFor('1991-02-03', 'P', 77));
      await typeInto('nama', 'Wulan Sari Dewi');
      await typeInto('tempatLahir', 'Bandung');
      await tabTo(page, '[name="tanggalLahir"]');
      await page.keyboard.type('04031991'); // mm dd yyyy in en-US
      await tabTo(page, '[name="jenisKelamin"]');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await typeInto('alamat', 'Jl. Kenanga No. 7');
      await typeInto('kotaKabupaten', 'Bandung');
      await typeInto('provinsi', 'Jawa Barat');
      await typeInto('telepon', '0812 3456 7890');
      await tabTo(page, '#save-patient');
      await page.keyboard.press('Enter');
      await page.locator('.field-error', { hasText: 'Tanggal pada NIK' }).waitFor();
      assert.equal(await message('nik'), 'Tanggal pada NIK (DDMMYY) tidak sesuai dengan tanggal lahir.');
      assert.equal(await message('nama'), '', 'the fixed fields have no message any more');

      await typeInto('nik', nikFor('1991-04-03', 'P', 77));
      await tabTo(page, '#save-patient');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/pasien\/[0-9a-f-]{36}$/);
      await page.locator('#patient-status', { hasText: 'terdaftar dengan No. RM' }).waitFor();
      const noRm = (await page.textContent('#patient-norm'))!;
      assert.match(noRm, /^\d{8}$/);
      assert.equal(await page.textContent('[data-field="telepon"]'), '+6281234567890');
      assert.equal(await page.locator('#archive-patient').count(), 0, 'a clerk does not archive');
      assert.equal(await page.locator('#access-history').count(), 0, 'nor sees the audit trail');
      await checkPage(page, 'patient');

      // Found by name, by NIK and by medical-record number (leading zeros optional).
      for (const search of ['wulan sari', nikFor('1991-04-03', 'P', 77), String(Number(noRm))]) {
        await page.goto('/pasien');
        await tabTo(page, '#patient-search');
        await page.keyboard.type(search);
        await page.keyboard.press('Enter');
        await page.locator('#patient-table .patient-link', { hasText: 'Wulan Sari Dewi' }).waitFor();
        // The unfiltered list (newest first) shows her too: wait for the search's own answer.
        await waitFor(`one result for ${search}`, async () => (await page.locator('#patient-table tbody tr').count()) === 1, 10_000);
      }
      // Paging: 20 at a time, then the next page with the cursor.
      await page.goto('/pasien');
      await page.locator('#patient-table tbody tr').nth(19).waitFor();
      assert.equal(await page.locator('#patient-table tbody tr').count(), 20);
      await tabTo(page, '#load-more');
      await page.keyboard.press('Enter');
      await page.locator('#patient-table tbody tr').nth(25).waitFor();
      assert.equal(await page.locator('#load-more').count(), 0, 'the last page');
    } finally {
      await context.close();
    }
  });

  test("a doctor corrects a patient; a colleague's conflicting edit is shown, not overwritten", async () => {
    const target = await findPatient('joko');
    const { context, page } = await contextAs(USERS.doctor);
    const clerk = (await signInWithOtp(stack, smtp, USERS.clerk)).cookie;
    try {
      await page.goto(`/pasien/${target.id}`);
      await page.locator('#patient-record').waitFor();
      assert.equal(await page.locator('#archive-patient').count(), 0, 'a doctor does not archive');
      await page.click('#edit-patient');
      await page.waitForURL(`**/pasien/${target.id}/ubah`);
      await page.fill('[name="pekerjaan"]', 'Guru');
      // Meanwhile a colleague changes the phone number and the occupation.
      const theirs = await api('/trpc/pasien.update', clerk, {
        id: target.id,
        expectedVersion: target.version,
        telepon: '081111111111',
        pekerjaan: 'Petani',
      });
      assert.equal(theirs.status, 200);
      await page.click('#save-patient');
      await page.locator('#conflict').waitFor();
      await checkPage(page, 'edit-conflict');
      assert.match((await page.textContent('#conflict tr[data-field="pekerjaan"]')) ?? '', /Guru.*Petani/);
      assert.match((await page.textContent('#conflict tr[data-field="telepon"]')) ?? '', /\+6281111111111/);
      const stored = (await api(`/trpc/pasien.get?input=${encodeURIComponent(JSON.stringify({ id: target.id }))}`, adminCookie)).json
        .result!.data as Pasien;
      assert.equal(stored.pekerjaan, 'Petani', 'nothing was overwritten');
      await page.click('#keep-mine');
      assert.equal(await page.inputValue('[name="telepon"]'), '+6281111111111', 'their change is kept');
      assert.equal(await page.inputValue('[name="pekerjaan"]'), 'Guru', 'mine applied on top');
      await page.click('#save-patient');
      await page.waitForURL(`**/pasien/${target.id}`);
      await page.locator('#patient-status', { hasText: 'Perubahan disimpan' }).waitFor();
      assert.equal(await page.textContent('[data-field="pekerjaan"]'), 'Guru');
      assert.equal(await page.textContent('[data-field="telepon"]'), '+6281111111111');
    } finally {
      await context.close();
    }
  });

  test('a nurse reads patients but cannot edit or archive; an auditor sees who read a record and no patient data', async () => {
    const target = await findPatient('rina');
    const nurse = await contextAs(USERS.nurse);
    try {
      await nurse.page.goto(`/pasien/${target.id}`);
      await nurse.page.locator('#patient-record').waitFor();
      assert.equal(await nurse.page.locator('#edit-patient, #archive-patient, #access-history').count(), 0);
      assert.deepEqual(await nurse.page.locator('nav a').allTextContents(), ['Antrean', 'Pasien', 'Akun saya']);
      await nurse.page.goto(`/pasien/${target.id}/ubah`);
      await nurse.page.locator('#not-allowed').waitFor();
      await nurse.page.goto('/pasien');
      assert.equal(await nurse.page.locator('#register-patient').count(), 0);
    } finally {
      await nurse.context.close();
    }
    const auditor = await contextAs(USERS.auditor);
    try {
      await auditor.page.goto('/');
      await auditor.page.waitForURL('**/audit');
      assert.deepEqual(await auditor.page.locator('nav a').allTextContents(), ['Log audit', 'Akun saya']);
      await auditor.page.locator('.audit-table').waitFor();
      await checkPage(auditor.page, 'audit');
      await auditor.page.fill('[name="pasien"]', target.id);
      await auditor.page.selectOption('[name="action"]', 'pasien.get');
      await auditor.page.click('#apply-filters');
      const read = auditor.page.locator('.audit-table tbody tr[data-action="pasien.get"]', { hasText: 'Perawat' });
      await read.first().waitFor();
      // Only what AI agents did (through the MCP server): none here, the nurse read it herself.
      await auditor.page.selectOption('[name="agen"]', 'ya');
      await auditor.page.click('#apply-filters');
      await auditor.page.locator('#audit-count', { hasText: 'Tidak ada catatan yang cocok.' }).waitFor();
      await auditor.page.selectOption('[name="agen"]', 'tidak');
      await auditor.page.click('#apply-filters');
      await read.first().waitFor();
      // Colleagues by name (identity's names for auditors), the hospital by name in the header.
      assert.equal(await read.first().locator('.actor-name').textContent(), 'perawat');
      await auditor.page.locator('#tenant-id', { hasText: `Rumah Sakit ${TENANT}` }).waitFor();
      assert.doesNotMatch((await auditor.page.textContent('main')) ?? '', /Rina Wulandari/, 'no patient data');
      await auditor.page.goto(`/pasien/${target.id}`);
      await auditor.page.locator('#not-allowed').waitFor();
    } finally {
      await auditor.context.close();
    }
  });
});

describe('tenant administration', () => {
  test('an admin archives a patient after confirming with a reason, and sees its access history', async () => {
    const target = await findPatient('agus');
    const { context, page } = await contextAs(USERS.admin);
    try {
      await page.goto(`/pasien/${target.id}`);
      await page.locator('#access-history .audit-table').waitFor();
      await checkPage(page, 'patient-admin');
      await tabTo(page, '#archive-patient');
      await page.keyboard.press('Enter');
      const dialog = page.locator('dialog[open]');
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', new RegExp(target.nama));
      await checkPage(page, 'archive-dialog');
      assert.ok(await dialog.locator('button[type="submit"]').isDisabled(), 'no archiving without a reason');
      await page.keyboard.type('Data ganda');
      await page.keyboard.press('Enter');
      await page.locator('#archived-badge').waitFor();
      assert.equal(await page.locator('#archive-patient, #edit-patient').count(), 0);
      await page.goto(`/pasien?cari=${target.nik}`);
      await page.locator('#result-count', { hasText: 'Tidak ada' }).waitFor();
      await page.goto(`/pasien?cari=${target.nik}&status=archived`);
      await page.locator(`#patient-table tr[data-pasien-id="${target.id}"] .badge`).waitFor();
    } finally {
      await context.close();
    }
  });

  test('an admin invites with an explicit role, changes a role and deactivates someone (their other browser is signed out at once), then reactivates', async () => {
    const admin = await contextAs(USERS.admin);
    const bidan = await contextAs(BIDAN);
    try {
      await bidan.page.goto('/pasien');
      await bidan.page.locator('#patient-table').waitFor();

      const { page } = admin;
      await page.goto('/admin/pengguna');
      await page.locator('#user-table').waitFor();
      await checkPage(page, 'users');
      // No default role: the invitation needs one chosen.
      await page.fill('#invite-form [name="email"]', 'apoteker@rs-dash.test');
      await page.fill('#invite-form [name="name"]', 'Apoteker Ani');
      await page.click('#send-invite');
      await page.locator('#invite-form .field-error', { hasText: 'Pilih peran' }).waitFor();
      assert.equal(await page.inputValue('#invite-form [name="role"]'), '');
      await page.selectOption('#invite-form [name="role"]', 'nurse');
      const since = smtp.messages.length;
      await page.click('#send-invite');
      await page.locator('#users-status', { hasText: 'Undangan dikirim ke apoteker@rs-dash.test' }).waitFor();
      await smtp.waitForMail('apoteker@rs-dash.test', since);
      const row = page.locator('#user-table tr[data-email="apoteker@rs-dash.test"]');
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /Apoteker Ani.*belum pernah masuk/s, 'invited, never signed in');
      assert.equal(await row.locator('.last-sign-in').count(), 1, 'the last sign-in is said once');

      // Change the role: the confirmation names the person, the old and the new role.
      await row.locator('.role-select').selectOption('doctor');
      await row.locator('.change-role').click();
      const dialog = page.locator('dialog[open]');
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', /Apoteker Ani.*Perawat.*Dokter/s);
      await dialog.locator('button[type="submit"]').click();
      await page.locator('#users-status', { hasText: 'sekarang Dokter' }).waitFor();

      // Deactivate Bidan, whose own browser is on the patient list.
      const bidanRow = page.locator(`#user-table tr[data-email="${BIDAN}"]`);
      await bidanRow.locator('.deactivate-user').click();
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', new RegExp(`bidan.*${BIDAN.replace('.', '\\.')}.*sesi`, 's'));
      await checkPage(page, 'deactivate-dialog');
      await dialog.locator('button[type="submit"]').click();
      await page.locator('#users-status', { hasText: /bidan dinonaktifkan; [1-9]\d* sesi diakhiri/ }).waitFor();
      await page.locator(`#user-table tr[data-email="${BIDAN}"][data-active="false"]`).waitFor();
      // Her next step in the other browser finds the session gone.
      await bidan.page.locator('#patient-table .patient-link').first().click();
      await bidan.page.waitForURL('**/masuk**', { timeout: 10_000 });

      await page.locator(`#user-table tr[data-email="${BIDAN}"] .reactivate-user`).click();
      await dialog.waitFor();
      await dialog.locator('button[type="submit"]').click();
      await page.locator(`#user-table tr[data-email="${BIDAN}"][data-active="true"]`).waitFor();
    } finally {
      await admin.context.close();
      await bidan.context.close();
    }
  });

  test('an admin issues a registration token with write access and sees the client registered with it; the tenant audit log filters', async () => {
    const { context, page } = await contextAs(USERS.admin);
    try {
      await page.goto('/admin/integrasi');
      await page.locator('#no-clients').waitFor();
      await checkPage(page, 'integrations');
      await page.check('#allow-write');
      await page.click('#issue-token');
      await page.locator('#issued-token').waitFor();
      const token = await page.inputValue('#token-value');
      assert.match(token, /^simrs_iat_/);
      assert.equal(await page.locator('#issued-token [data-scope="simrs:write"]').count(), 1);
      const registered = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/register`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Aplikasi Rujukan',
          redirect_uris: ['http://127.0.0.1:8765/callback'],
          application_type: 'native',
        }),
      });
      assert.equal(registered.status, 201, await registered.clone().text());
      await page.reload();
      await page.locator('#client-list .client', { hasText: 'Aplikasi Rujukan' }).waitFor();

      await page.goto('/audit');
      await page.locator('.audit-table').waitFor();
      await page.selectOption('[name="action"]', 'pasien.archive');
      await page.click('#apply-filters');
      await page.waitForURL('**/audit?action=pasien.archive');
      await page.locator('.audit-table tbody tr[data-action="pasien.archive"]').first().waitFor();
      assert.equal(await page.locator('.audit-table tbody tr:not([data-action="pasien.archive"])').count(), 0);
      assert.match((await page.textContent('.audit-table tbody tr')) ?? '', /Admin/, 'names, not ids, for an admin');
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
      await phone.page.locator('#patient-table').waitFor();
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
      await phone.page.locator('#patient-table .patient-link').first().click();
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
