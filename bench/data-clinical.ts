// `npm run bench:data` (SCALE=1 by default): the clinical benchmark's data set in a database of its own
// on the server of DATABASE_URL (default BENCH_KLINIS_DB=bench_klinis, dropped and made again): at
// SCALE=1, 1M patients (bench/records.ts's bulk load), about 5M outpatient visits over two years at 8
// clinics, 20M vital signs, a primary diagnosis for every finished visit and some secondaries, SOAP
// notes on three visits in ten, allergies or "no known allergy" on more than half the patients, and
// today's day at every clinic (synth.ts in records). Migrated first by records' own migration command.
// The scale, the time it took and the date are kept as the database's comment, so that the bench
// (bench/klinis.ts) reuses a data set of the scale it wants instead of making it again.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { databaseUrl, ensureDatabase } from '@simrs/platform/db';
import { generateClinical, SYNTH_CLINICS } from '@simrs/records/synth-klinis';
import { recordsAppUrl } from '../scripts/lib/stack.ts';
import { load, TENANT } from './records.ts';

export const PATIENTS_AT_SCALE_1 = 1_000_000;

export interface ClinicalData {
  url: string;
  scale: number;
  patients: number;
  visits: number;
  /** Seconds the whole data set took to make (patients, visits, entries, analyze). */
  seconds: number;
  date: string;
}

function migrate(url: string): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['src/db/migrate.ts'], {
      cwd: resolve(import.meta.dirname, '../services/records'),
      env: { ...process.env, MIGRATION_DATABASE_URL: url, DATABASE_URL: recordsAppUrl(url), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`records' migration exited ${code}`))));
  });
}

const serverUrl = () => process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const dataUrl = () => databaseUrl(serverUrl(), process.env.BENCH_KLINIS_DB ?? 'bench_klinis');

/** The data set already there (its comment), or undefined. */
export async function existingData(url = dataUrl()): Promise<ClinicalData | undefined> {
  const admin = new pg.Client({ connectionString: databaseUrl(serverUrl(), 'postgres') });
  await admin.connect();
  try {
    const name = new URL(url).pathname.slice(1);
    const { rows } = await admin.query<{ c: string | null }>(
      "select shobj_description(oid, 'pg_database') as c from pg_database where datname = $1",
      [name],
    );
    const comment = rows[0]?.c;
    return comment ? { ...(JSON.parse(comment) as Omit<ClinicalData, 'url'>), url } : undefined;
  } finally {
    await admin.end();
  }
}

/** Makes the data set at `scale` (dropping any database of the same name first). */
export async function makeClinicalData(scale: number, say: (line: string) => void = () => {}): Promise<ClinicalData> {
  const url = dataUrl();
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: databaseUrl(serverUrl(), 'postgres') });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  } finally {
    await admin.end();
  }
  await ensureDatabase(url);
  await migrate(url);
  const t0 = performance.now();
  const patients = Math.max(1, Math.round(PATIENTS_AT_SCALE_1 * scale));
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    await load(owner, 0, patients);
    say(`${patients} patients in ${Math.round((performance.now() - t0) / 1000)} s`);
    const result = await generateClinical(owner, {
      tenantId: TENANT,
      today: true,
      clinics: SYNTH_CLINICS,
      rebuildIndexes: true,
      progress: (step, s) => say(`${step}: ${s} s`),
    });
    const seconds = Math.round((performance.now() - t0) / 1000);
    const data = { scale, patients, visits: result.visits, seconds, date: new Date().toISOString().slice(0, 10) };
    await owner.query(`comment on database ${pg.escapeIdentifier(name)} is ${pg.escapeLiteral(JSON.stringify(data))}`);
    return { ...data, url };
  } finally {
    await owner.end();
  }
}

if (import.meta.main) {
  const scale = Number(process.env.SCALE ?? 1);
  if (!(scale > 0 && scale <= 1)) throw new Error(`SCALE must be in (0, 1], not ${process.env.SCALE}`);
  const data = await makeClinicalData(scale, (line) => console.log(line));
  console.log(`made ${data.url}: ${data.patients} patients, ${data.visits} visits in ${data.seconds} s`);
}
