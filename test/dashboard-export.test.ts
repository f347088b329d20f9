// The administrator's "export all data of this hospital" in Chromium, through the gateway with the
// session cookie: the page starts the Bulk Data job, shows it running, then offers one NDJSON file per
// type, whose lines are the hospital's; in Indonesian (the default) and English, accessible, without
// sideways scrolling on a phone or tablet. Another role has no such page.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
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
import { checkPage, ensureDashboardBuilt, openContext, registerPatients, ROLE_OF, TENANT, USERS } from './support/dashboard.ts';
import { seedUsers, signInWithOtp } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let browser: Browser;
let closeBrowser: () => Promise<void>;

before(async () => {
  ensureDashboardBuilt();
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({ postgresUrl: testServerUrl, dbPrefix: `t_dashexp_${Date.now()}_`, redisUrl: redis.url, smtpUrl: smtp.url });
  await seedUsers(
    stack,
    (['admin', 'doctor'] as const).map((k) => ({ email: USERS[k], tenant: TENANT, role: ROLE_OF[k] })),
  );
  await registerPatients(stack, (await signInWithOtp(stack, smtp, USERS.admin)).cookie, 3);
  ({ browser, close: closeBrowser } = await launchBrowser());
});

after(async () => {
  await closeBrowser?.();
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

describe('the hospital data export', () => {
  test('the administrator starts it, sees it run, and downloads one NDJSON file per type', async () => {
    const { context, page } = await openContext({ browser, stack, smtp }, USERS.admin);
    try {
      // Only the kick-off's status address is polled: a poll before it answers would fetch the page itself.
      const strayPolls: string[] = [];
      page.on('request', (r) => {
        if (r.resourceType() === 'fetch' && new URL(r.url()).pathname.startsWith('/admin/')) strayPolls.push(r.url());
      });
      await page.goto('/');
      await page.getByRole('link', { name: 'Ekspor data' }).click();
      await page.getByRole('heading', { name: 'Ekspor semua data rumah sakit ini' }).waitFor();
      await checkPage(page, 'export-idle');
      await page.getByRole('button', { name: 'Mulai ekspor' }).click();
      await page.locator('#export-status', { hasText: 'Ekspor berjalan' }).waitFor();
      const link = page.locator('#export-files a[data-type="Patient"]');
      await link.waitFor({ timeout: 60_000 });
      assert.match((await link.textContent()) ?? '', /Patient: 3 baris/);
      assert.deepEqual(strayPolls, [], 'polled before the kick-off answered');
      await checkPage(page, 'export-done');
      // As a person downloads it: the link clicked in the page (the session cookie counts for the
      // page's own same-origin requests only).
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.equal(download.suggestedFilename(), 'Patient.ndjson');
      const lines = (await readFile((await download.path())!, 'utf8')).split('\n').filter(Boolean);
      assert.deepEqual(
        lines.map((l) => (JSON.parse(l) as { resourceType: string }).resourceType),
        ['Patient', 'Patient', 'Patient'],
      );
      await page.goto('/admin/ekspor?lang=en');
      await page.getByRole('heading', { name: 'Export all data of this hospital' }).waitFor();
      await page.getByRole('button', { name: 'Start the export' }).waitFor();
    } finally {
      await context.close();
    }
  });

  test('a doctor has neither the menu entry nor the page', async () => {
    const { context, page } = await openContext({ browser, stack, smtp }, USERS.doctor);
    try {
      await page.goto('/admin/ekspor');
      await page.locator('#not-allowed').waitFor();
      assert.equal(await page.getByRole('link', { name: 'Ekspor data' }).count(), 0);
    } finally {
      await context.close();
    }
  });
});
