// The tenant administrator in the staff dashboard, in Chromium against the whole stack through the
// gateway: archiving a patient after a confirmation with a reason, inviting with an explicit role,
// changing a role, deactivating someone (their other browser signed out at once) and reactivating them,
// a registration token with write access and the client registered with it, and the tenant audit
// log's filters. axe-core on every page, phone and tablet viewports without sideways scrolling.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkPage, USERS } from './support/dashboard.ts';
import { BIDAN, contextAs, findPatient, smtp, stack, tabTo, useDashboardStack } from './support/dashboard-suite.ts';

useDashboardStack('dashadmin');

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
