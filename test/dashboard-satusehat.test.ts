// The dashboard's SATUSEHAT page in Chromium, against the whole stack with the stand-in platform: the
// administrator saves the connection (the secret never shown again) and tests it; a visit the platform
// refused is listed with the platform's own message; once the cause is gone the administrator resends
// it and it shows as sent. The doctor's visit page shows the same visit's sync state, failed and then sent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { testServerUrl, waitFor } from '@simrs/platform/testing';
import { startSatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import type { SatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { dataOf, FAST_SATUSEHAT, hospital, outboxOf } from '@simrs/records/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { launchBrowser } from './support/browser.ts';
import { checkPage, ensureDashboardBuilt, openContext, ROLE_OF, TENANT, USERS } from './support/dashboard.ts';
import { recordsDirect } from './support/records-direct.ts';
import { seedUsers } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let peer: SatusehatPeer;
let records: Awaited<ReturnType<typeof recordsDirect>>;
let browser: Browser;
let closeBrowser: () => Promise<void>;

before(async () => {
  ensureDashboardBuilt();
  [redis, smtp, peer] = await Promise.all([startRedisServer(), startSmtpPeer(), startSatusehatPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_dashss_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: { records: { SATUSEHAT_STAGING_URL: peer.url, ...FAST_SATUSEHAT } },
  });
  await seedUsers(stack, [
    { email: USERS.admin, tenant: TENANT, role: ROLE_OF.admin },
    { email: USERS.doctor, tenant: TENANT, role: ROLE_OF.doctor },
  ]);
  records = await recordsDirect(stack);
  ({ browser, close: closeBrowser } = await launchBrowser());
});

after(async () => {
  await closeBrowser?.();
  await records?.close();
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop(), peer?.stop()]);
});

describe('SATUSEHAT', () => {
  test("the connection is saved and tested; a refused visit shows the platform's message; after the fix it is resent and shows as sent", async () => {
    const h = await hospital(records, peer, 'dash', TENANT);
    peer.inject('duplicate', { resourceType: 'Encounter' });
    const v = await h.finishedVisit();
    await waitFor('the platform to refuse the visit', async () => (await outboxOf(records, v.visit))?.state === 'failed', 30_000);
    const { context, page } = await openContext({ browser, stack, smtp }, USERS.admin);
    const doctor = await openContext({ browser, stack, smtp }, USERS.doctor);
    try {
      // The doctor works at the visit's clinic (a treatment relationship), so the visit page opens in full.
      await doctor.page.goto('/');
      const doctorId = await doctor.page.evaluate(async () => {
        const session = (await (await fetch('/api/auth/get-session')).json()) as { user: { id: string } };
        return session.user.id;
      });
      const admin = await records.principal(TENANT, 'tenant_admin'); // h.admin may have aged past its minute by now
      dataOf(await records.mutate('poli.assign', { poliId: h.poliId, userId: doctorId }, admin));
      await doctor.page.goto(`/kunjungan/${v.visit}`);
      await doctor.page.locator('#visit-sync[data-sync="failed"]', { hasText: 'SATUSEHAT: Gagal' }).waitFor();

      await page.goto('/admin/satusehat');
      await page.getByLabel('Client ID').fill(h.clientId);
      await page.getByLabel('Client secret').fill(h.clientSecret);
      await page.locator('#save-connection').click();
      await page.locator('#connection-status', { hasText: 'Koneksi disimpan.' }).waitFor();
      assert.equal(await page.getByLabel('Client secret').inputValue(), '');
      await page.locator('#test-connection').click();
      await page.locator('#connection-status', { hasText: 'SATUSEHAT menerima kredensial ini.' }).waitFor();
      assert.ok(!(await page.content()).includes(h.clientSecret), 'the page never shows the secret');
      await page.getByLabel('ID pengguna').fill(h.doctorUserId);
      await page.getByLabel('NIK', { exact: true }).fill(h.doctorNik);
      await page.locator('#save-practitioner').click();
      await page.locator('#practitioner-status', { hasText: `NIK untuk ${h.doctorUserId} disimpan.` }).waitFor();
      const row = page.locator(`#satusehat-list tr[data-visit="${v.visit}"]`);
      await row.waitFor();
      assert.match((await row.locator('.sync-reason').textContent()) ?? '', /Found duplicate resource/);
      await checkPage(page, 'satusehat-failed');
      // The refusal was the platform's once only: the cause is gone, and the administrator resends.
      await row.getByRole('button', { name: `Kirim ulang kunjungan ${v.noKunjungan}` }).click();
      await page.locator('#satusehat-status', { hasText: v.noKunjungan }).waitFor();
      await page.getByLabel('Tampilkan').selectOption('sent');
      await page.locator(`#satusehat-list tr[data-visit="${v.visit}"][data-state="sent"]`).waitFor({ timeout: 30_000 });
      assert.equal((await outboxOf(records, v.visit))?.state, 'sent');
      await doctor.page.reload();
      await doctor.page.locator('#visit-sync[data-sync="sent"]', { hasText: 'SATUSEHAT: Terkirim' }).waitFor();
      assert.equal((await peer.resources('Encounter')).filter((e) => e.identifier[0].value === v.noKunjungan).length, 1);
    } finally {
      await Promise.all([context.close(), doctor.context.close()]);
    }
  });
});
