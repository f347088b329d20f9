// The patients in the staff dashboard, in Chromium against the whole stack through the gateway: a clerk
// registers one with the keyboard (the API's field messages, translated, in place) and finds them by
// name, NIK and MRN, page by page; a doctor's correction meets a colleague's conflicting edit; a nurse
// reads but cannot change, and an auditor sees who read a record and no patient data. axe-core on
// every page, phone and tablet viewports without sideways scrolling.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitFor } from '@simrs/platform/testing';
import { checkPage, nikFor, TENANT, USERS } from './support/dashboard.ts';
import { adminCookie, api, contextAs, findPatient, smtp, stack, tabTo, useDashboardStack } from './support/dashboard-suite.ts';
import type { Pasien } from './support/dashboard-suite.ts';
import { signInWithOtp } from './support/users.ts';

useDashboardStack('dashpat');

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
