// Records benchmark: p50/p95 latency of pasien.list (first page, a name search, a NIK lookup) and of the
// FHIR search (`Patient?identifier=<NIK system>|<NIK>`, `Patient?name=`) against the real records
// process with a signed principal, with 10k and with 1M patients in one tenant. Each size has its own
// throwaway database and records process; the patients are bulk-loaded with generate_series (as the
// owner, under the same RLS, triggers and indexes the service uses). The requests compared are
// interleaved (both sizes; tRPC and FHIR) so that background load on the machine weighs on each alike.
// Run alone: `node bench/records.ts` (BENCH_RECORDS_SMALL / _LARGE / _SAMPLES to change the sizes).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { signPrincipal } from '@simrs/contracts/principal';
import { freePort, startService, throwawayDatabase, waitForReady } from '@simrs/platform/testing';
import { FAMILY, FEMALE, MALE, PLACES } from '@simrs/records/synth';
import { percentile } from './load.ts';

export interface Row {
  name: string;
  [figure: string]: number | string;
}

export const TENANT = 'rs-bench';
const SMALL = Number(process.env.BENCH_RECORDS_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_RECORDS_LARGE ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_RECORDS_SAMPLES ?? 400);
const WARMUP = 50;
const SEARCH = 'siti';

/** Patients from+1 .. to, set-based; every NIK is distinct and consistent with birth date and sex. */
export async function load(owner: pg.Client, from: number, to: number): Promise<void> {
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

interface Target {
  size: number;
  url: string;
  principal: string;
  /** The NIK of a patient in the middle of the table. */
  nik: string;
}

interface Figures {
  p50: number;
  p95: number;
  rows: number;
}

/** One kind of request: a pasien.list input (tRPC) or a FHIR search query string. */
type Request = { trpc: unknown } | { fhir: (t: Target) => string };

async function once(target: Target, request: Request): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const headers = { 'x-simrs-principal': target.principal };
  if ('trpc' in request) {
    const res = await fetch(`${target.url}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(request.trpc))}`, { headers });
    const body = (await res.json()) as { result?: { data: { items: unknown[] } } };
    const ms = performance.now() - t0;
    if (res.status !== 200 || !body.result) throw new Error(`pasien.list answered ${res.status}: ${JSON.stringify(body)}`);
    return { ms, rows: body.result.data.items.length };
  }
  const res = await fetch(`${target.url}/api/v1/fhir/Patient?${request.fhir(target)}`, { headers });
  const body = (await res.json()) as { resourceType?: string; entry?: unknown[] };
  const ms = performance.now() - t0;
  if (res.status !== 200 || body.resourceType !== 'Bundle') throw new Error(`FHIR search answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, rows: body.entry?.length ?? 0 };
}

/**
 * Measures every arm (a target and a request), interleaved (a, b, c, c, b, a, ...), so that whatever
 * else the machine is doing weighs on all arms alike and their ratios compare like with like.
 */
async function measure(arms: { target: Target; request: Request }[]): Promise<Figures[]> {
  const times = arms.map(() => [] as number[]);
  const rows = arms.map(() => 0);
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const order = i % 2 === 0 ? arms.map((_, k) => k) : arms.map((_, k) => arms.length - 1 - k);
    for (const k of order) {
      const r = await once(arms[k]!.target, arms[k]!.request);
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
  let nik: string;
  try {
    await load(owner, 0, size);
    const middle = String(Math.floor(size / 2)).padStart(8, '0');
    nik = (await owner.query<{ nik: string }>('select nik from records.pasien where tenant_id = $1 and no_rm = $2', [TENANT, middle]))
      .rows[0]!.nik;
  } finally {
    await owner.end();
  }
  const loadSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const principal = await signPrincipal(
    { userId: 'bench', tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
    secret,
    3600,
  );
  return { size, url, principal, nik, loadSeconds };
}

const NIK_SYSTEM = 'https://fhir.kemkes.go.id/id/nik';
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export async function benchRecords(): Promise<Row[]> {
  const cleanup: (() => Promise<unknown>)[] = [];
  const rows: Row[] = [];
  try {
    const targets = [await provision(SMALL, cleanup), await provision(LARGE, cleanup)];
    const [small, large] = targets as [Target & { loadSeconds: number }, Target & { loadSeconds: number }];
    const row = (name: string, t: Target & { loadSeconds: number }, f: Figures): Row => ({
      name,
      patients: t.size,
      p50_ms: f.p50,
      p95_ms: f.p95,
      page_rows: f.rows,
      load_s: t.loadSeconds,
    });
    const ratios: Row[] = [];

    // pasien.list's first page: the same request at both sizes.
    const [firstSmall, firstLarge] = await measure(targets.map((target) => ({ target, request: { trpc: { limit: 20 } } })));
    rows.push(row('pasien.list first page', small, firstSmall!), row('pasien.list first page', large, firstLarge!));
    ratios.push({
      name: `pasien.list first page: ${LARGE / 1000}k vs ${SMALL / 1000}k (target <= 1.5)`,
      p50_ratio: ratio(firstLarge!.p50, firstSmall!.p50),
      p95_ratio: ratio(firstLarge!.p95, firstSmall!.p95),
    });

    // The same question asked of tRPC and of FHIR, at both sizes, all four interleaved.
    const pairs: { label: string; trpc: (t: Target) => unknown; fhir: (t: Target) => string }[] = [
      {
        label: 'by NIK',
        trpc: (t) => ({ nik: t.nik, limit: 20 }),
        fhir: (t) => `identifier=${encodeURIComponent(`${NIK_SYSTEM}|${t.nik}`)}&_count=20`,
      },
      { label: `by name "${SEARCH}"`, trpc: () => ({ q: SEARCH, limit: 20 }), fhir: () => `name=${SEARCH}&_count=20` },
    ];
    for (const pair of pairs) {
      const arms = targets.flatMap((target) => [
        { target, request: { trpc: pair.trpc(target) } as Request },
        { target, request: { fhir: pair.fhir } as Request },
      ]);
      const [trpcSmall, fhirSmall, trpcLarge, fhirLarge] = await measure(arms);
      rows.push(
        row(`pasien.list ${pair.label}`, small, trpcSmall!),
        row(`FHIR Patient search ${pair.label}`, small, fhirSmall!),
        row(`pasien.list ${pair.label}`, large, trpcLarge!),
        row(`FHIR Patient search ${pair.label}`, large, fhirLarge!),
      );
      ratios.push(
        {
          name: `pasien.list ${pair.label}: ${LARGE / 1000}k vs ${SMALL / 1000}k (target <= 1.5)`,
          p50_ratio: ratio(trpcLarge!.p50, trpcSmall!.p50),
          p95_ratio: ratio(trpcLarge!.p95, trpcSmall!.p95),
        },
        {
          name: `FHIR search ${pair.label} vs pasien.list at ${LARGE / 1000}k (target <= 1.5)`,
          p50_ratio: ratio(fhirLarge!.p50, trpcLarge!.p50),
          p95_ratio: ratio(fhirLarge!.p95, trpcLarge!.p95),
        },
      );
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
