// The visit page's load through the gateway: what the dashboard asks when a doctor opens a visit in
// progress (test/support/visit-page.ts: the visit, then the need-to-know probe, then five parts at
// once, as a browser sends them), with a signed-in doctor's session cookie, through the whole stack
// (gateway, identity's session check, records), on the clinical bench data set (bench/klinis.ts's,
// BENCH_KLINIS_SCALE and BENCH_KLINIS_DB choose it). p50/p95 of the whole load (target p95 under
// 300 ms) and of each call, one page at a time over today's visits in progress.
// Alone: `npx node bench/visit-page.ts`; BENCH_VISIT_SAMPLES (default 200).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { build } from '../scripts/build.ts';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { recordsAppUrl, startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { seedUsers, signInWithOtp } from '../test/support/users.ts';
import { callLine, visitPageCalls } from '../test/support/visit-page.ts';
import type { Call } from '../test/support/visit-page.ts';
import { data as clinicalData, today } from './klinis.ts';
import { percentile, printTable } from './load.ts';
import { TENANT } from './records.ts';
import { verdict } from './verdict.ts';

const SAMPLES = Number(process.env.BENCH_VISIT_SAMPLES ?? 200);
const WARMUP = 20;
const P95_TARGET_MS = 300;
const DOCTOR = `dokter@${TENANT}.test`;

type Row = Record<string, string | number>;
const round = (n: number) => Math.round(n * 100) / 100;

/** The signed-in doctor works at every clinic of the data set (removed again when the bench ends). */
async function assignEverywhere(url: string, userId: string, assign: boolean): Promise<void> {
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    await (assign
      ? owner.query(
          `insert into records.poli_staff (tenant_id, poli_id, user_id, assigned_by) select tenant_id, id, $2, 'bench'
           from records.poli where tenant_id = $1 on conflict do nothing`,
          [TENANT, userId],
        )
      : owner.query('delete from records.poli_staff where tenant_id = $1 and user_id = $2', [TENANT, userId]));
  } finally {
    await owner.end();
  }
}

/** A call without its values (`vital.list {"kunjunganId":"…"}`): the rows of the table. */
const shapeOf = (call: Call) => callLine({ ...call, input: Object.fromEntries(Object.keys(call.input).map((k) => [k, '…'])) });

/** Opens one visit page as the browser would: stage after stage, each stage's calls at once. */
async function openVisitPage(stack: Stack, cookie: string, stages: Call[][], times: Map<string, number[]>): Promise<number> {
  const t0 = performance.now();
  for (const stage of stages) {
    await Promise.all(
      stage.map(async (call) => {
        const started = performance.now();
        const res = await fetch(`${stack.gatewayUrl}/trpc/${call.path}?input=${encodeURIComponent(JSON.stringify(call.input))}`, {
          headers: { cookie, origin: stack.publicUrl },
        });
        const body = await res.text();
        if (res.status !== 200) throw new Error(`${call.path} answered ${res.status}: ${body.slice(0, 300)}`);
        const key = shapeOf(call);
        times.set(key, [...(times.get(key) ?? []), performance.now() - started]);
      }),
    );
  }
  return performance.now() - t0;
}

export async function benchVisitPage(): Promise<Row[]> {
  const d = await clinicalData();
  const visits = (await today(d.url)).inProgress;
  if (visits.length === 0) throw new Error('the data set has no visit in progress today');
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack | undefined;
  let doctorId: string | undefined;
  try {
    build();
    stack = await startStack({
      postgresUrl: testServerUrl,
      dbPrefix: `b_visit_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      compiled: true,
      readyTimeoutMs: 120_000,
      // records serves the data set; the stack's own records database stays empty.
      env: {
        all: { LOG_LEVEL: 'warn' },
        // The per-caller limit stays on (its Redis round trip is part of every call), never reached.
        gateway: { RATE_LIMIT_PER_MINUTE: '100000000' },
        records: { DATABASE_URL: recordsAppUrl(d.url), MIGRATION_DATABASE_URL: d.url },
      },
    });
    await seedUsers(stack, [{ email: DOCTOR, tenant: TENANT, role: 'doctor' }]);
    const { cookie } = await signInWithOtp(stack, smtp, DOCTOR);
    const session = await fetch(`${stack.gatewayUrl}/api/auth/get-session`, { headers: { cookie, origin: stack.publicUrl } });
    doctorId = ((await session.json()) as { user: { id: string } }).user.id;
    await assignEverywhere(d.url, doctorId, true);

    const times = new Map<string, number[]>();
    const pages: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const visit = visits[(i * 7919) % visits.length]!;
      const sample = i >= WARMUP ? times : new Map<string, number[]>();
      const ms = await openVisitPage(stack, cookie, visitPageCalls(visit), sample);
      if (i >= WARMUP) pages.push(ms);
    }
    pages.sort((a, b) => a - b);
    const p95 = percentile(pages, 95);
    const calls = visitPageCalls(visits[0]!);
    return [
      { name: `data: ${d.patients} patients, ${d.visits} visits (scale ${d.scale}); ${visits.length} visits in progress today` },
      {
        name: `visit page load via gateway, ${calls.flat().length} calls in ${calls.length} steps (p95 target < ${P95_TARGET_MS} ms): ${verdict(p95 < P95_TARGET_MS)}`,
        p50_ms: round(percentile(pages, 50)),
        p95_ms: round(p95),
      },
      ...calls.flat().map((call) => {
        const sorted = (times.get(shapeOf(call)) ?? []).sort((a, b) => a - b);
        return { name: `  ${shapeOf(call)}`, p50_ms: round(percentile(sorted, 50)), p95_ms: round(percentile(sorted, 95)) };
      }),
    ];
  } finally {
    if (doctorId) await assignEverywhere(d.url, doctorId, false).catch(() => {});
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  }
}

if (import.meta.main) printTable('the visit page through the gateway', await benchVisitPage());
