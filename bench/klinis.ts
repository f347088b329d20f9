// Clinical bench: straight to records (signed principal, no gateway) on the clinical data set
// (bench/data-clinical.ts, made again when missing, of another scale, or without today's visits):
// a patient's timeline (`klinis.riwayat`, limit 20) and a clinic's worklist for today
// (`kunjungan.list` with poliId), p50/p95 of one request at a time, interleaved, 400 samples each;
// and vital-sign writes per second against the database's ceiling for the same statements
// (bench/klinis-writes.ts), in turns. The caller is a doctor assigned to every clinic, and the
// timelines are those of today's patients (the patients a doctor opens from the worklist).
// Alone: `node bench/klinis.ts`; BENCH_KLINIS_SCALE (default 1), BENCH_KLINIS_SAMPLES,
// BENCH_KLINIS_SECONDS, BENCH_KLINIS_CONNECTIONS (default 10, records' pool).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { signPrincipal } from '@simrs/contracts/principal';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import { recordsAppUrl } from '../scripts/lib/stack.ts';
import { dataUrl, existingData, makeClinicalData } from './data-clinical.ts';
import type { ClinicalData } from './data-clinical.ts';
import { pgCeiling, recordsWrites, vitalRecordStatements } from './klinis-writes.ts';
import type { Visit } from './klinis-writes.ts';
import { percentile } from './load.ts';
import { TENANT } from './records.ts';
import { ratioShown, verdict } from './verdict.ts';

const SCALE = Number(process.env.BENCH_KLINIS_SCALE ?? 1);
const SAMPLES = Number(process.env.BENCH_KLINIS_SAMPLES ?? 400);
const SECONDS = Number(process.env.BENCH_KLINIS_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_KLINIS_CONNECTIONS ?? 10);
const WARMUP = 50;
const DOCTOR = 'dr-bench';

type Row = Record<string, string | number>;

interface Day {
  patients: string[];
  clinics: string[];
  inProgress: Visit[];
}

/** The doctor at every clinic, and today's patients, clinics and visits in progress. */
export async function today(url: string): Promise<Day> {
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    await owner.query(
      `insert into records.poli_staff (tenant_id, poli_id, user_id, assigned_by) select tenant_id, id, $2, 'bench'
       from records.poli where tenant_id = $1 on conflict do nothing`,
      [TENANT, DOCTOR],
    );
    const day = "(now() at time zone 'Asia/Jakarta')::date";
    const visits = await owner.query<{ id: string; pasien_id: string; poli_id: string; status: string }>(
      `select id::text, pasien_id::text, poli_id::text, status from records.kunjungan where tenant_id = $1 and tanggal = ${day}`,
      [TENANT],
    );
    return {
      patients: [...new Set(visits.rows.filter((v) => v.status !== 'cancelled').map((v) => v.pasien_id))],
      clinics: [...new Set(visits.rows.map((v) => v.poli_id))],
      inProgress: visits.rows.filter((v) => v.status === 'in-progress').map((v) => ({ id: v.id, pasienId: v.pasien_id })),
    };
  } finally {
    await owner.end();
  }
}

export async function data(): Promise<ClinicalData> {
  const found = await existingData();
  const fresh = found && found.scale === SCALE ? (await today(found.url)).inProgress.length > 0 : false;
  if (found && fresh) return found;
  console.error(`making the clinical data set at scale ${SCALE} (${dataUrl()})`);
  return makeClinicalData(SCALE, (line) => console.error(`  ${line}`));
}

async function call(url: string, principal: string, path: string, input: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { 'x-simrs-principal': principal },
  });
  return { status: res.status, body: await res.json() };
}

/** p50/p95 of each arm, one request at a time, the arms interleaved. */
async function latencies(url: string, principal: string, arms: { path: string; input: (i: number) => unknown }[]): Promise<number[][]> {
  const times = arms.map(() => [] as number[]);
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    for (const [k, arm] of arms.entries()) {
      const t0 = performance.now();
      const res = await call(url, principal, arm.path, arm.input(i));
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${arm.path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (i >= WARMUP) times[k]!.push(ms);
    }
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return times.map((t) => (t.sort((a, b) => a - b), [round(percentile(t, 50)), round(percentile(t, 95))]));
}

async function writes(d: ClinicalData, url: string, secret: string, principal: string, day: Day): Promise<Row[]> {
  const appUrl = recordsAppUrl(d.url);
  const captured = day.inProgress[0]!;
  const sent = await vitalRecordStatements(d.url, appUrl, secret, TENANT, captured);
  const insert = sent.filter((s) => /insert into records\.klinis/.test(s.text));
  if (insert.length !== 1) throw new Error(`vital.record sent ${insert.length} klinis inserts: ${JSON.stringify(sent.map((s) => s.text))}`);
  let records = 0;
  let ceiling = 0;
  let errors = 0;
  // In turns, so that whatever else the machine does weighs on both alike.
  for (let round = 0; round < 2; round++) {
    ceiling += await pgCeiling(appUrl, TENANT, insert, captured, day.inProgress, CONNECTIONS, SECONDS);
    const r = await recordsWrites(url, principal, day.inProgress, CONNECTIONS, SECONDS);
    records += r.rps;
    errors += r.errors;
  }
  const all = await pgCeiling(appUrl, TENANT, sent, captured, day.inProgress, CONNECTIONS, SECONDS);
  const ratio = records / ceiling;
  return [
    { name: `vital.record (BP, heart rate, temperature), ${CONNECTIONS} callers`, per_s: Math.round(records / 2), errors },
    {
      name: `database ceiling: BEGIN, tenant, the write statement (need-to-know, insert, audit), COMMIT (pg, ${CONNECTIONS} connections)`,
      per_s: Math.round(ceiling / 2),
    },
    { name: 'vital.record ÷ ceiling (target >= 0.5)', ratio: ratioShown(ratio, 'atLeast'), verdict: verdict(ratio >= 0.5) },
    { name: 'for reference: every statement vital.record sends, as one transaction', per_s: Math.round(all), statements: sent.length },
  ];
}

export async function benchKlinis(): Promise<Row[]> {
  const d = await data();
  const day = await today(d.url);
  const secret = randomBytes(32).toString('hex');
  const port = await freePort();
  const proc = startService('records', 'services/records', {
    HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    DATABASE_URL: recordsAppUrl(d.url),
    MIGRATION_DATABASE_URL: d.url,
    PRINCIPAL_SECRET: secret,
    LOG_LEVEL: 'warn',
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForReady(`${url}/readyz`, 120_000);
    const principal = await signPrincipal(
      { userId: DOCTOR, tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
      secret,
      3600,
    );
    const input = (id: string) => ({ pasienId: id, limit: 20 });
    const pick = <T>(list: T[], i: number) => list[(i * 7919) % list.length]!;
    const [timeline, worklist] = await latencies(url, principal, [
      { path: 'klinis.riwayat', input: (i) => input(pick(day.patients, i)) },
      { path: 'kunjungan.list', input: (i) => ({ poliId: pick(day.clinics, i), limit: 100 }) },
    ]);
    const shape = `${d.patients} patients, ${d.visits} visits (scale ${d.scale}, made in ${d.seconds} s on ${d.date})`;
    return [
      { name: `data: ${shape}` },
      {
        name: `klinis.riwayat ${JSON.stringify(input('…'))}`,
        p50_ms: timeline![0]!,
        p95_ms: timeline![1]!,
        verdict: verdict(timeline![1]! < 50),
      },
      {
        name: "kunjungan.list today's worklist { poliId, limit: 100 }",
        p50_ms: worklist![0]!,
        p95_ms: worklist![1]!,
        verdict: verdict(worklist![1]! < 50),
      },
      ...(await writes(d, url, secret, principal, day)),
    ];
  } finally {
    await proc.stop();
  }
}

if (import.meta.main) console.table(await benchKlinis());
