// Dashboard benchmark: the first load (what index.html names: script, preloaded modules, stylesheet;
// gzipped, target under 250 KB) and the patient search as the dashboard asks it (pasien.list with a
// name, a NIK or a medical-record number, first page of 20) through the gateway with a session cookie,
// with 1M patients in the tenant (p95 target under 300 ms each). The stack is the tests' (as
// bench/gateway.ts builds it); the patients are bulk-loaded as bench/records.ts does. Requests are
// sequential (one person searching), the three kinds interleaved.
// Run alone: `node bench/dashboard.ts` (BENCH_DASHBOARD_PATIENTS, BENCH_DASHBOARD_SAMPLES to change).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { FIRST_LOAD_BUDGET_BYTES, firstLoad } from '../dashboard/first-load.ts';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { seedUsers, signInWithOtp } from '../test/support/users.ts';
import { percentile, printTable } from './load.ts';
import { load as loadPatients, TENANT } from './records.ts';
import { verdict } from './verdict.ts';

const PATIENTS = Number(process.env.BENCH_DASHBOARD_PATIENTS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 200);
const WARMUP = 20;
const P95_TARGET_MS = 300;

type Row = Record<string, string | number>;
const round = (n: number) => Math.round(n * 100) / 100;

function firstLoadRow(): Row {
  const { files, gzipBytes } = firstLoad();
  return {
    name: `dashboard first load, ${files.length} files (target < ${FIRST_LOAD_BUDGET_BYTES / 1024} KB): ${verdict(gzipBytes < FIRST_LOAD_BUDGET_BYTES)}`,
    figure: `${(gzipBytes / 1024).toFixed(1)} KB gzipped`,
    p50_ms: '',
    p95_ms: '',
  };
}

export async function benchDashboard(): Promise<Row[]> {
  const rows: Row[] = [firstLoadRow()];
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack | undefined;
  try {
    stack = await startStack({
      postgresUrl: testServerUrl,
      dbPrefix: `b_dashboard_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      env: { all: { LOG_LEVEL: 'warn' }, gateway: { RATE_LIMIT_PER_MINUTE: '0' } },
    });
    const clerk = `pendaftaran@${TENANT}.test`;
    await seedUsers(stack, [
      { email: `admin@${TENANT}.test`, tenant: TENANT, role: 'tenant_admin' },
      { email: clerk, tenant: TENANT, role: 'registration_clerk' },
    ]);
    const owner = new pg.Client({ connectionString: stack.databases.records });
    await owner.connect();
    const t0 = performance.now();
    let nik: string;
    try {
      await loadPatients(owner, 0, PATIENTS);
      const middle = String(Math.floor(PATIENTS / 2)).padStart(8, '0');
      nik = (await owner.query<{ nik: string }>('select nik from records.pasien where tenant_id = $1 and no_rm = $2', [TENANT, middle]))
        .rows[0]!.nik;
    } finally {
      await owner.end();
    }
    const loadSeconds = Math.round((performance.now() - t0) / 1000);
    const { cookie } = await signInWithOtp(stack, smtp, clerk);

    // What the dashboard's one search box sends for a name, a 16-digit NIK and an MRN (PatientList.tsx).
    const searches: { label: string; input: Record<string, unknown> }[] = [
      { label: 'name "siti"', input: { q: 'siti', status: 'active', limit: 20 } },
      { label: 'NIK', input: { nik, status: 'active', limit: 20 } },
      { label: 'medical-record number', input: { noRm: String(Math.floor(PATIENTS / 3)), status: 'active', limit: 20 } },
    ];
    const times = searches.map(() => [] as number[]);
    const found = searches.map(() => 0);
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      for (const [k, search] of searches.entries()) {
        const started = performance.now();
        const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(search.input))}`, {
          headers: { cookie, origin: stack.publicUrl },
        });
        const body = (await res.json()) as { result?: { data: { items: unknown[] } } };
        const ms = performance.now() - started;
        if (res.status !== 200 || !body.result) throw new Error(`pasien.list answered ${res.status}: ${JSON.stringify(body)}`);
        found[k] = body.result.data.items.length;
        if (i >= WARMUP) times[k]!.push(ms);
      }
    }
    for (const [k, search] of searches.entries()) {
      const sorted = times[k]!.sort((a, b) => a - b);
      const p95 = percentile(sorted, 95);
      rows.push({
        name: `patient search by ${search.label} via gateway, ${PATIENTS / 1000}k patients (p95 target < ${P95_TARGET_MS} ms): ${verdict(p95 < P95_TARGET_MS)}`,
        figure: `${found[k]} rows; loaded in ${loadSeconds} s`,
        p50_ms: round(percentile(sorted, 50)),
        p95_ms: round(p95),
      });
    }
  } finally {
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  }
  return rows;
}

if (import.meta.main) {
  printTable('dashboard: first load and patient search through the gateway', await benchDashboard());
}
