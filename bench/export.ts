// Bulk Data export bench (after `npm run build`: records runs compiled, as its image does): a whole
// hospital's export (`$export`, every type) of the clinical data set (bench/data-clinical.ts; 1M
// patients at BENCH_EXPORT_SCALE=1), straight to records with a backend
// service's principal, timed from kick-off to the manifest, in resources per second; against the
// database's own ceiling in the same run: `COPY (<the same query, unpaged>) TO STDOUT` of every type's
// rows through psql. Records' peak RSS is sampled during the export. Targets: at least 0.5 of the
// ceiling; RSS under 250 MB. Alone: `node bench/export.ts`; BENCH_EXPORT_SCALE (default 1),
// BENCH_KLINIS_DB names the data set's database (it is shared with bench/klinis.ts at the same scale),
// BENCH_PROFILE_DIR=<dir> writes records' --cpu-prof there (read it with bench/profile-top.ts),
// BENCH_NODE_OPTIONS adds node options to records (heap settings), BENCH_EXPORT_PAGE_SIZE and
// BENCH_EXPORT_LANES set its EXPORT_PAGE_SIZE and EXPORT_LANES (records' defaults otherwise).
import { spawn } from 'node:child_process';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { signPrincipal } from '@simrs/contracts/principal';
import { podHeapOption } from '@simrs/platform/runtime';
import { freePort, startService, waitFor, waitForReady } from '@simrs/platform/testing';
import { allRowsSql } from '@simrs/records/bulk-export-sql';
import { recordsAppUrl } from '../scripts/lib/stack.ts';
import { existingData, makeClinicalData } from './data-clinical.ts';
import type { ClinicalData } from './data-clinical.ts';
import { cpuByPid, cpuSeconds, IDLE_WAIT_MS, measureUsage, rssMb } from './procstat.ts';
import { TENANT } from './records.ts';
import { ratioShown, verdict } from './verdict.ts';

const SCALE = Number(process.env.BENCH_EXPORT_SCALE ?? 1);
const TYPES = ['Patient', 'Encounter', 'Observation', 'Condition', 'AllergyIntolerance'] as const;
const RSS_TARGET_MB = 250;
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** records with the heap limit its pod gives it (runtime.ts), and whatever BENCH_NODE_OPTIONS adds. */
const NODE_OPTIONS = [
  podHeapOption('records'),
  process.env.BENCH_NODE_OPTIONS,
  PROFILE_DIR ? `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` : undefined,
]
  .filter(Boolean)
  .join(' ');

type Row = Record<string, string | number>;

async function data(): Promise<ClinicalData> {
  const found = await existingData();
  if (found && found.scale === SCALE) return found;
  console.error(`making the clinical data set at scale ${SCALE}`);
  return makeClinicalData(SCALE, (line) => console.error(`  ${line}`));
}

/**
 * Rows psql copies out for `sql` (the output itself is thrown away), and the CPU seconds its Postgres
 * backend spent (sampled every 20 ms from /proc while it lives: the last sample, up to 20 ms short).
 */
function copyOut(url: string, sql: string): Promise<{ rows: number; cpu: number }> {
  return new Promise((ok, fail) => {
    const psql = spawn('psql', [url, '-X', '-q', '-A', '-t', '-c', 'select pg_backend_pid()', '-c', `copy (${sql}) to stdout`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let lines = 0;
    let head = '';
    let backend: number | undefined;
    let cpu = 0;
    const sampler = setInterval(() => {
      try {
        if (backend) cpu = cpuSeconds(backend);
      } catch {
        // the backend has exited: its last sample stands
      }
    }, 20);
    psql.stdout.on('data', (chunk: Buffer) => {
      let from = 0;
      if (backend === undefined) {
        // The first line is the backend's pid; the copy's rows follow.
        const end = chunk.indexOf(10);
        head += chunk.toString('utf8', 0, end === -1 ? chunk.length : end);
        if (end === -1) return;
        backend = Number(head);
        from = end + 1;
      }
      for (let i = chunk.indexOf(10, from); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    psql.once('error', fail);
    psql.once('exit', (code) => {
      clearInterval(sampler);
      if (code === 0) ok({ rows: lines, cpu });
      else fail(new Error(`psql exited ${code}`));
    });
  });
}

/**
 * The database's ceiling: every type's rows copied out, one type after another, in rows per second,
 * and the CPU its backends spent per row.
 */
async function ceiling(url: string): Promise<{ rows: number; perSecond: number; cpuPerRow: number }> {
  const t0 = performance.now();
  let rows = 0;
  let cpu = 0;
  for (const type of TYPES) {
    const copied = await copyOut(url, allRowsSql(type));
    rows += copied.rows;
    cpu += copied.cpu;
  }
  return { rows, perSecond: Math.round(rows / ((performance.now() - t0) / 1000)), cpuPerRow: cpu / rows };
}

/**
 * `work`, and the CPU seconds records' Postgres backends spent meanwhile, sampled every half second:
 * the export's lanes open their connections when a job starts and close them when it ends, so a
 * backend first seen during the work counts whole, and one that closed counts to its last sample.
 */
async function withBackendCpu<T>(url: string, work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  const cpu = new Map<number, { first: number; last: number }>();
  const sample = async (atStart: boolean) => {
    const { rows } = await owner.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and application_name = 'records'",
    );
    for (const [pid, seconds] of cpuByPid(rows.map((r) => r.pid))) {
      const seen = cpu.get(pid);
      if (seen) seen.last = seconds;
      else cpu.set(pid, { first: atStart ? seconds : 0, last: seconds });
    }
  };
  try {
    await sample(true);
    let sampling = Promise.resolve();
    const timer = setInterval(() => (sampling = sampling.then(() => sample(false)).catch(() => {})), 500);
    const result = await work().finally(() => clearInterval(timer));
    await sampling;
    await sample(false);
    let seconds = 0;
    for (const { first, last } of cpu.values()) seconds += last - first;
    return { result, seconds };
  } finally {
    await owner.end();
  }
}

/** Kick-off to manifest; the resources the manifest counts, and the job's status URL. */
async function exportOnce(base: string, principal: string): Promise<{ resources: number; seconds: number; status: string }> {
  const headers = { 'x-simrs-principal': principal, accept: 'application/fhir+json' };
  const t0 = performance.now();
  const kickOff = await fetch(`${base}/$export`, { headers: { ...headers, prefer: 'respond-async' } });
  if (kickOff.status !== 202) throw new Error(`kick-off answered ${kickOff.status}: ${await kickOff.text()}`);
  const status = kickOff.headers.get('content-location')!;
  const manifest = await waitFor(
    'the export to finish',
    async () => {
      const res = await fetch(status, { headers });
      if (res.status === 200) return (await res.json()) as { output: { count: number }[] };
      await res.arrayBuffer();
      return undefined;
    },
    24 * 3600_000,
    250,
  );
  const seconds = (performance.now() - t0) / 1000;
  return { resources: manifest.output.reduce((sum, file) => sum + file.count, 0), seconds, status };
}

/**
 * Removes the finished export and waits until records' sweep has deleted its files, so that the data
 * set's database does not grow with every run, nor the next run's export share the machine with the
 * sweep; the seconds from the DELETE to the job's row gone.
 */
async function removeExport(url: string, status: string, principal: string): Promise<number> {
  const t0 = performance.now();
  const removed = await fetch(status, { method: 'DELETE', headers: { 'x-simrs-principal': principal } });
  if (removed.status !== 202) throw new Error(`removing the export answered ${removed.status}: ${await removed.text()}`);
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    const job = new URL(status).pathname.split('/').at(-1);
    await waitFor(
      "the export's files to be removed",
      async () => (await owner.query('select 1 from records.export_job where id = $1', [job])).rowCount === 0,
      3600_000,
      500,
    );
  } finally {
    await owner.end();
  }
  return (performance.now() - t0) / 1000;
}

export async function benchExport(): Promise<Row[]> {
  const d = await data();
  const secret = randomBytes(32).toString('hex');
  const port = await freePort();
  // As the pods run it: compiled (npm run build, which this does not redo), so that neither the main
  // thread nor a lane's thread carries the type stripper's memory.
  const proc = startService(
    'records',
    'services/records',
    {
      HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      DATABASE_URL: recordsAppUrl(d.url),
      MIGRATION_DATABASE_URL: d.url,
      PRINCIPAL_SECRET: secret,
      LOG_LEVEL: 'warn',
      ...(process.env.BENCH_EXPORT_LANES ? { EXPORT_LANES: process.env.BENCH_EXPORT_LANES } : {}),
      // The bench polls every 250 ms: no throttling in its way.
      EXPORT_POLL_INTERVAL_SECONDS: '0',
      EXPORT_WORKER_INTERVAL_MS: '100',
      ...(process.env.BENCH_EXPORT_PAGE_SIZE ? { EXPORT_PAGE_SIZE: process.env.BENCH_EXPORT_PAGE_SIZE } : {}),
      ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
    },
    { compiled: true },
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForReady(`${url}/readyz`, 120_000);
    const ready = performance.now();
    const principal = await signPrincipal(
      { userId: 'bench-warehouse', clientId: 'bench-warehouse', tenantId: TENANT, role: 'backend_service', scopes: ['system/*.rs'] },
      secret,
      3600,
    );
    const floor = await ceiling(d.url);
    // records as it is between exports, not just started: its start-up is a busy spell, after which it
    // gives memory back (the idle reclaim, as in the gateway bench's idle figures); records is left
    // alone while the ceiling is measured, which at 1M patients takes longer than this anyway.
    await sleep(Math.max(0, IDLE_WAIT_MS - (performance.now() - ready)));
    const idleRss = rssMb(proc.child.pid!);
    const {
      result: { result, usage },
      seconds: pgSeconds,
    } = await withBackendCpu(d.url, () => measureUsage({ records: proc.child.pid! }, () => exportOnce(`${url}/api/v1/fhir`, principal)));
    const perSecond = Math.round(result.resources / result.seconds);
    const ratio = perSecond / floor.perSecond;
    const rss = usage.peakRss.records!;
    const perResource = (seconds: number) => Math.round((seconds / result.resources) * 1e7) / 10;
    const exportCpu = (usage.cpu.records! + pgSeconds) / result.resources;
    const removalSeconds = await removeExport(d.url, result.status, principal);
    return [
      { name: `data: ${d.patients} patients, ${d.visits} visits (scale ${d.scale}); ${result.resources} resources exported` },
      { name: 'COPY (same queries) TO STDOUT, rows/s (ceiling)', figure: floor.perSecond },
      { name: `$export resources/s (${Math.round(result.seconds)} s)`, figure: perSecond },
      { name: '$export ÷ ceiling (target >= 0.5)', figure: ratioShown(ratio, 'atLeast'), verdict: verdict(ratio >= 0.5) },
      { name: "records' CPU per resource exported, µs", figure: perResource(usage.cpu.records!) },
      { name: "records' Postgres backends' CPU per resource exported, µs", figure: perResource(pgSeconds) },
      { name: "COPY's Postgres backend CPU per row, µs", figure: Math.round(floor.cpuPerRow * 1e7) / 10 },
      // Less moved by other work on the machine than the wall-clock ratio: what a row costs Postgres
      // to copy out against what a resource costs records and its backends together.
      { name: 'COPY CPU per row ÷ $export CPU per resource (reference)', figure: Math.round((floor.cpuPerRow / exportCpu) * 100) / 100 },
      { name: 'records RSS before the export, MB', figure: idleRss },
      { name: `records peak RSS during the export, MB (target < ${RSS_TARGET_MB})`, figure: rss, verdict: verdict(rss < RSS_TARGET_MB) },
      { name: 'removing the export: DELETE to its files gone, s', figure: Math.round(removalSeconds * 10) / 10 },
    ];
  } finally {
    await proc.stop();
  }
}

if (import.meta.main) console.table(await benchExport());
