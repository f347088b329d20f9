// Records benchmark: p50/p95 latency of pasien.list (first page, and a name search) against the real
// records process with a signed principal, with 10k and with 1M patients in one tenant. Each size has
// its own throwaway database and records process; the patients are bulk-loaded with generate_series
// (as the owner, under the same RLS, triggers and indexes the service uses). Requests to the two sizes
// are interleaved so that background load on the machine affects both alike. Run alone:
// `node bench/records.ts` (BENCH_RECORDS_SMALL / _LARGE / _SAMPLES to change the sizes).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { signPrincipal } from '@simrs/contracts/principal';
import { freePort, startService, throwawayDatabase, waitForReady } from '@simrs/platform/testing';
import { FAMILY, FEMALE, MALE, PLACES } from '../services/records/src/pasien/synth.ts';

export interface Row {
  name: string;
  [figure: string]: number | string;
}

const TENANT = 'rs-bench';
const SMALL = Number(process.env.BENCH_RECORDS_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_RECORDS_LARGE ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_RECORDS_SAMPLES ?? 400);
const WARMUP = 50;
const SEARCH = 'siti';

/** Patients from+1 .. to, set-based; every NIK is distinct and consistent with birth date and sex. */
async function load(owner: pg.Client, from: number, to: number): Promise<void> {
  const places = PLACES.map((p) => p[0]);
  const provinces = PLACES.map((p) => p[1]);
  const codes = PLACES.map((p) => p[2] + String(p[3]).padStart(2, '0'));
  for (let start = from; start < to; start += 100_000) {
    const end = Math.min(to, start + 100_000);
    await owner.query('begin');
    await owner.query("select set_config('app.tenant_id', $1, true)", [TENANT]);
    await owner.query(
      `insert into records.pasien (no_rm, nik, nama, tempat_lahir, tanggal_lahir, jenis_kelamin, alamat, kota_kabupaten, provinsi,
                                   telepon, golongan_darah, created_by, updated_by)
       select lpad(g.i::text, 8, '0'),
              x.code || lpad((1 + (g.i / 9999) % 99)::text, 2, '0')
                     || lpad((extract(day from x.d)::int + case when x.female then 40 else 0 end)::text, 2, '0')
                     || to_char(x.d, 'MMYY') || lpad((1 + g.i % 9999)::text, 4, '0'),
              (case when x.female then $1::text[] else $2::text[] end)[1 + (g.i * 7 + g.i / 13) % 40]
                || case when g.i % 7 = 0 then '' else ' ' || ($3::text[])[1 + (g.i * 31 + g.i / 7) % array_length($3::text[], 1)] end,
              ($4::text[])[1 + g.i % array_length($4::text[], 1)],
              x.d, case when x.female then 'P' else 'L' end,
              'Jl. Merdeka No. ' || (1 + g.i % 200),
              ($4::text[])[1 + (g.i / 3) % array_length($4::text[], 1)], ($5::text[])[1 + (g.i / 3) % array_length($5::text[], 1)],
              '+628' || lpad((g.i::bigint * 7919 % 1000000000)::text, 9, '0'), 'O', 'bench', 'bench'
       from generate_series($7::int + 1, $8::int) as g(i)
       cross join lateral (select (g.i % 2 = 0) as female,
                                  date '1940-01-01' + ((g.i * 37) % 30000) as d,
                                  ($6::text[])[1 + (g.i / 3) % array_length($6::text[], 1)] as code) x`,
      [FEMALE, MALE, FAMILY, places, provinces, codes, start, end],
    );
    await owner.query(
      `insert into records.rm_counter (tenant_id, last_value) values ($1, $2)
       on conflict (tenant_id) do update set last_value = excluded.last_value`,
      [TENANT, end],
    );
    await owner.query('commit');
  }
  await owner.query('vacuum analyze records.pasien, records.pasien_nama');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Target {
  size: number;
  url: string;
  principal: string;
}

interface Figures {
  p50: number;
  p95: number;
  rows: number;
}

async function once(target: Target, input: unknown): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const res = await fetch(`${target.url}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { 'x-simrs-principal': target.principal },
  });
  const body = (await res.json()) as { result?: { data: { items: unknown[] } } };
  const ms = performance.now() - t0;
  if (res.status !== 200 || !body.result) throw new Error(`pasien.list answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, rows: body.result.data.items.length };
}

/**
 * Measures the same request against every target, interleaved (a, b, b, a, ...), so that whatever
 * else the machine is doing weighs on all sizes alike and the ratio compares like with like.
 */
async function measure(targets: Target[], input: unknown): Promise<Figures[]> {
  const times = targets.map(() => [] as number[]);
  const rows = targets.map(() => 0);
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const order = i % 2 === 0 ? targets.map((_, k) => k) : targets.map((_, k) => targets.length - 1 - k);
    for (const k of order) {
      const r = await once(targets[k]!, input);
      rows[k] = r.rows;
      if (i >= WARMUP) times[k]!.push(r.ms);
    }
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return times.map((t, k) => {
    t.sort((a, b) => a - b);
    return { p50: round(percentile(t, 50)), p95: round(percentile(t, 95)), rows: rows[k]! };
  });
}

/** A throwaway database with `size` patients in one tenant and a records process in front of it. */
async function provision(size: number, cleanup: (() => Promise<unknown>)[]): Promise<Target & { loadSeconds: number }> {
  const db = await throwawayDatabase(`bench_records_${size}`);
  cleanup.push(() => (process.env.BENCH_RECORDS_KEEP ? (console.error(`kept ${db.url}`), Promise.resolve()) : db.drop()));
  const appUrl = new URL(db.url);
  appUrl.username = 'records_app';
  appUrl.password = 'records_app';
  const secret = randomBytes(32).toString('hex');
  const port = await freePort();
  const proc = startService('records', 'services/records', {
    HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    DATABASE_URL: appUrl.toString(),
    MIGRATION_DATABASE_URL: db.url,
    PRINCIPAL_SECRET: secret,
    LOG_LEVEL: 'warn',
  });
  cleanup.push(() => proc.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitForReady(`${url}/readyz`, 60_000);
  const owner = new pg.Client({ connectionString: db.url });
  await owner.connect();
  const t0 = performance.now();
  try {
    await load(owner, 0, size);
  } finally {
    await owner.end();
  }
  const loadSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const principal = await signPrincipal(
    { userId: 'bench', tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
    secret,
    3600,
  );
  return { size, url, principal, loadSeconds };
}

export async function benchRecords(): Promise<Row[]> {
  const cleanup: (() => Promise<unknown>)[] = [];
  const rows: Row[] = [];
  try {
    const targets = [await provision(SMALL, cleanup), await provision(LARGE, cleanup)];
    const cases = [
      { label: 'first page', input: { limit: 20 } },
      { label: `name search "${SEARCH}"`, input: { q: SEARCH, limit: 20 } },
    ];
    const ratios: Row[] = [];
    for (const c of cases) {
      const [small, large] = await measure(targets, c.input);
      for (const [k, f] of [small!, large!].entries()) {
        rows.push({
          name: `pasien.list ${c.label}`,
          patients: targets[k]!.size,
          p50_ms: f.p50,
          p95_ms: f.p95,
          page_rows: f.rows,
          load_s: targets[k]!.loadSeconds,
        });
      }
      ratios.push({
        name: `pasien.list ${c.label}: ${LARGE / 1000}k vs ${SMALL / 1000}k (target <= 1.5)`,
        p50_ratio: Math.round((large!.p50 / small!.p50) * 100) / 100,
        p95_ratio: Math.round((large!.p95 / small!.p95) * 100) / 100,
      });
    }
    rows.push(...ratios);
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  }
  return rows;
}

if (import.meta.main) {
  const rows = await benchRecords();
  console.table(rows);
}
