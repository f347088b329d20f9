// `npx node scripts/screenshot-vitals-chart.ts`: the picture of the vital-signs chart in the dashboard's
// README, made again. Starts the tests' stack (throwaway databases on DATABASE_URL's server, or the
// embedded Postgres the test kit starts), seeds the demo hospitals (two years of synthetic visits and
// today's worklists), signs the demo doctor in, opens the clinical record of the patient of today's
// worklist with the most past visits, at tablet size (768x1024), and saves the "vital signs over time"
// section, in Indonesian and in English, as dashboard/docs/vitals-chart-768-<lang>.png. Needs Chromium
// (Debian's `chromium`) and the built dashboard (built here when it is out of date).
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot, testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { launchBrowser } from '../test/support/browser.ts';
import { ensureDashboardBuilt, openContext } from '../test/support/dashboard.ts';
import { startRedisServer } from './lib/redis.ts';
import { seedDevelopmentData } from './lib/seed.ts';
import { startStack } from './lib/stack.ts';

const DOCTOR = 'dokter@rs-demo.test';
const SIZE = { width: 768, height: 1024 };

/** Today's patient at one of the demo doctor's clinics with the most visits with vital signs. */
async function patientWithHistory(recordsDatabase: string): Promise<string> {
  const owner = new pg.Client({ connectionString: recordsDatabase });
  await owner.connect();
  try {
    const { rows } = await owner.query<{ pasien_id: string }>(
      `select k.pasien_id::text as pasien_id from records.kunjungan k join records.poli p on p.id = k.poli_id
       join records.klinis e on e.pasien_id = k.pasien_id and e.jenis = 'vital'
       where k.tenant_id = 'rs-demo' and p.kode in ('UMUM', 'PD') and k.status <> 'cancelled'
         and k.tanggal = (now() at time zone 'Asia/Jakarta')::date
       group by k.pasien_id order by count(distinct e.kunjungan_id) desc, k.pasien_id limit 1`,
    );
    if (!rows[0]) throw new Error("no patient on the demo doctor's worklist today");
    return rows[0].pasien_id;
  } finally {
    await owner.end();
  }
}

ensureDashboardBuilt();
const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
const stack = await startStack({
  postgresUrl: testServerUrl,
  dbPrefix: `s_chart_${Date.now()}_`,
  redisUrl: redis.url,
  smtpUrl: smtp.url,
  readyTimeoutMs: 120_000,
  env: { all: { LOG_LEVEL: 'warn' } },
});
const { browser, close } = await launchBrowser();
try {
  await seedDevelopmentData(stack);
  const pasienId = await patientWithHistory(stack.databases.records);
  for (const lang of ['id', 'en']) {
    const { context, page } = await openContext({ browser, stack, smtp }, DOCTOR, { viewport: SIZE });
    try {
      await page.goto(`/pasien/${pasienId}/klinis?lang=${lang}`);
      await page.locator('#vitals-chart svg circle').first().waitFor({ timeout: 60_000 });
      const path = join(repoRoot, 'dashboard/docs', `vitals-chart-768-${lang}.png`);
      await page.locator('#vitals-over-time').screenshot({ path });
      console.log(`saved ${path}`);
    } finally {
      await context.close();
    }
  }
} finally {
  await close();
  await stack.stop();
  await Promise.all([redis.stop(), smtp.stop()]);
}
