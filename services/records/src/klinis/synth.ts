// Synthetic clinical history, made inside Postgres with set-based statements (synth-sql.ts): past
// outpatient visits of every active patient of a tenant over `days` days (about five a patient),
// each finished one with its vital signs, primary diagnosis (and sometimes a secondary) and, on some,
// a SOAP note; allergies or "no known allergy" on patients; and optionally today's clinic days in
// mixed states. Used by the development seed and the clinical benchmark's data
// (bench/data-clinical.ts). Runs as the owner; every row names its tenant, and app.tenant_id is set
// too, so it works under forced row-level security as well as a superuser. The history rows
// (records.klinis_versi) are written by the table's own statement trigger, chunk by chunk.
// A second run for a tenant that already has synthetic visits does nothing.
import type pg from 'pg';
import { ALLERGENS, CLINIC_CODES, ensureCodes, FEVER_CODES, SECONDARY_CODES, SYNTH_CODES } from './synth-catalogue.ts';
import * as sql from './synth-sql.ts';

export { ensureCodes, SYNTH_CLINICS, SYNTH_CODES } from './synth-catalogue.ts';

export interface ClinicalSynthOptions {
  tenantId: string;
  /** Days of history before today (default 730). */
  days?: number;
  /** Also give every clinic a day today (40 to 80 visits), unless the tenant has visits today already. */
  today?: boolean;
  /** Clinics to create where missing ({ kode, nama }); the visits go to the tenant's active clinics. */
  clinics?: readonly { kode: string; nama: string }[];
  /** Visits per statement (default 250,000). */
  chunk?: number;
  /**
   * Drop the tables' plain indexes for the load and build them again after it (sorted builds instead
   * of millions of random inserts): for a database nobody else uses meanwhile, such as the bench's.
   */
  rebuildIndexes?: boolean;
  /** Told about each step as it ends. */
  progress?: (step: string, seconds: number) => void;
}

export interface ClinicalSynthResult {
  skipped: boolean;
  patients: number;
  visits: number;
  seconds: number;
}

const TEMP_TABLES = `
  create temp table synth_p (n integer primary key, id uuid not null, female boolean not null, lahir date not null);
  create temp table synth_poli (idx integer primary key, id uuid not null, kode text not null);
  create temp table synth_code (code text primary key, display_en text, display_id text, keluhan text, rencana text);
  create temp table synth_dx (kode text primary key, codes text[] not null);
  create temp table synth_v (pn integer, pasien_id uuid, female boolean, lahir date, hyper boolean, k integer, tanggal date, h integer,
                             poli_idx integer, q integer, today_status text);
  create temp table synth_k (rn bigint generated always as identity, id uuid, pn integer, pasien_id uuid, poli_id uuid, poli_kode text,
                             tanggal date, k integer, h integer, hyper boolean, fever boolean, umur integer, female boolean, status text,
                             dx1 text, dx2 text, no_antrean integer, seq integer, registered_at timestamptz, started_at timestamptz,
                             ended_at timestamptz, sys integer, dia integer, nadi integer, suhu numeric, bb numeric)`;

/** The staging tables: the tenant's patients numbered, its clinics, the codes and each clinic's codes. */
async function stage(owner: pg.ClientBase, tenantId: string, clinicOrder: string[]): Promise<void> {
  await owner.query(TEMP_TABLES);
  await owner.query(
    `insert into synth_p select row_number() over (order by no_rm), id, jenis_kelamin = 'P', tanggal_lahir
     from records.pasien where tenant_id = $1 and status = 'active'`,
    [tenantId],
  );
  await owner.query(
    `insert into synth_poli select row_number() over (order by coalesce(array_position($2::text[], kode), 999), kode) - 1, id, kode
     from records.poli where tenant_id = $1 and active`,
    [tenantId, clinicOrder],
  );
  await owner.query(
    `insert into synth_code select c.code, k.display_en, k.display_id, c.keluhan, c.rencana
     from unnest($1::text[], $2::text[], $3::text[]) as c(code, keluhan, rencana)
     join records.kode k on k.system = 'icd-10' and k.code = c.code and k.active`,
    [SYNTH_CODES.map((c) => c[0]), SYNTH_CODES.map((c) => c[3]), SYNTH_CODES.map((c) => c[4])],
  );
  const dx = { ...CLINIC_CODES, FEVER: FEVER_CODES, SECONDARY: SECONDARY_CODES };
  await owner.query('insert into synth_dx select key, array(select jsonb_array_elements_text(value)) from jsonb_each($1::jsonb)', [
    JSON.stringify(dx),
  ]);
}

async function timed<T>(progress: ClinicalSynthOptions['progress'], step: string, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const result = await work();
  progress?.(step, Math.round((performance.now() - t0) / 100) / 10);
  return result;
}

/** Inserts the staged visits and their clinical entries, a chunk of visits per transaction. */
async function load(owner: pg.ClientBase, o: ClinicalSynthOptions, visits: number, patients: number, history: boolean): Promise<void> {
  const chunk = o.chunk ?? 250_000;
  const entries = (insert: string) => (history ? sql.withHistory(insert) : insert);
  const steps = [
    ['visits', sql.INSERT_VISITS],
    ['status history', sql.INSERT_STATUS],
    ['vital signs', entries(sql.INSERT_VITALS)],
    ['diagnoses', entries(sql.INSERT_DIAGNOSES)],
    ['notes', entries(sql.INSERT_NOTES)],
  ] as const;
  for (let from = 1; from <= visits; from += chunk) {
    const to = Math.min(visits + 1, from + chunk);
    await owner.query('begin');
    for (const [name, text] of steps) {
      await timed(o.progress, `${name} ${from}..${to - 1}`, () => owner.query(text, [o.tenantId, from, to]));
    }
    await owner.query('commit');
  }
  const allergens = JSON.stringify(
    ALLERGENS.map(([substance, category, criticality, reaction]) => ({ substance, category, criticality, reaction })),
  );
  for (let from = 1; from <= patients; from += chunk) {
    const to = Math.min(patients + 1, from + chunk);
    await timed(o.progress, `allergies ${from}..${to - 1}`, () =>
      owner.query(entries(sql.INSERT_ALLERGIES), [o.tenantId, from, to, allergens]),
    );
  }
  await owner.query(sql.COUNTERS, [o.tenantId]);
}

async function createClinics(owner: pg.ClientBase, clinics: readonly { kode: string; nama: string }[]): Promise<void> {
  await owner.query(
    `insert into records.poli (kode, nama, created_by, updated_by)
     select kode, nama, 'synth', 'synth' from unnest($1::text[], $2::text[]) as c(kode, nama) on conflict (tenant_id, kode) do nothing`,
    [clinics.map((c) => c.kode), clinics.map((c) => c.nama)],
  );
}

/**
 * The load, as fast as the role allows. A superuser loads with triggers off (session_replication_role
 * replica: no foreign-key checks, which lock every referenced patient and visit row once per entry,
 * and no statement trigger), the rows being consistent by construction, and writes the entries'
 * history itself in the same statements; anyone else loads through the triggers.
 */
async function loadFast(owner: pg.ClientBase, o: ClinicalSynthOptions, visits: number, patients: number): Promise<void> {
  const { rows } = await owner.query<{ su: boolean }>('select rolsuper as su from pg_roles where rolname = current_user');
  const fast = rows[0]?.su === true;
  const dropped = o.rebuildIndexes ? (await owner.query<{ name: string; def: string }>(sql.REBUILDABLE)).rows : [];
  for (const index of dropped) await owner.query(`drop index ${index.name}`);
  if (fast) await owner.query('set session_replication_role = replica');
  try {
    await load(owner, o, visits, patients, fast);
  } finally {
    if (fast) await owner.query('rollback; reset session_replication_role');
  }
  for (const index of dropped) await timed(o.progress, `index ${index.name}`, () => owner.query(index.def));
}

/** Generates the clinical history of `o.tenantId`'s patients (see the module's comment). */
export async function generateClinical(owner: pg.ClientBase, o: ClinicalSynthOptions): Promise<ClinicalSynthResult> {
  const t0 = performance.now();
  const seconds = () => Math.round((performance.now() - t0) / 100) / 10;
  // Large sorts and staging tables in memory; losing the last commits on a crash loses only synthetic rows.
  // The statements are planned as costly, but JIT-compiling them takes longer than running them.
  await owner.query(
    "set synchronous_commit = off; set work_mem = '256MB'; set maintenance_work_mem = '512MB'; set jit = off; set enable_memoize = off",
  );
  // Only before the session's first temporary table; otherwise the default stands.
  await owner.query("set temp_buffers = '1GB'").catch(() => {});
  await owner.query("select set_config('app.tenant_id', $1, false)", [o.tenantId]);
  try {
    await ensureCodes(owner);
    if (o.clinics) await createClinics(owner, o.clinics);
    const { rows: done } = await owner.query("select 1 from records.kunjungan where tenant_id = $1 and created_by = 'synth' limit 1", [
      o.tenantId,
    ]);
    if (done.length > 0) return { skipped: true, patients: 0, visits: 0, seconds: seconds() };
    for (const helper of sql.HELPERS) await owner.query(helper);
    await stage(
      owner,
      o.tenantId,
      (o.clinics ?? []).map((c) => c.kode),
    );
    const { rows } = await owner.query<{ today: string; busy: boolean; patients: number }>(
      `select (now() at time zone 'Asia/Jakarta')::date::text as today, (select count(*)::int from synth_p) as patients,
              exists (select 1 from records.kunjungan where tenant_id = $1 and tanggal = (now() at time zone 'Asia/Jakarta')::date) as busy`,
      [o.tenantId],
    );
    const { today, busy, patients } = rows[0]!;
    await timed(o.progress, 'plan past visits', () => owner.query(sql.PAST_VISITS, [today, o.days ?? 730]));
    if (o.today && !busy) await timed(o.progress, "plan today's visits", () => owner.query(sql.TODAY_VISITS, [today]));
    const staged = await timed(o.progress, 'number visits', () => owner.query(sql.STAGE_VISITS, [o.tenantId, today]));
    await owner.query('create index on synth_k (rn); create index on synth_k (pn) where k = 0; analyze synth_k');
    await loadFast(owner, o, staged.rowCount ?? 0, patients);
    await timed(o.progress, 'analyze', () =>
      owner.query('analyze records.kunjungan, records.kunjungan_status, records.klinis, records.klinis_versi'),
    );
    return { skipped: false, patients, visits: staged.rowCount ?? 0, seconds: seconds() };
  } finally {
    await owner.query('rollback').catch(() => {});
    await owner.query('drop table if exists synth_p, synth_poli, synth_code, synth_dx, synth_v, synth_k');
    await owner.query("select set_config('app.tenant_id', '', false)");
    await owner.query('reset synchronous_commit; reset work_mem; reset maintenance_work_mem; reset jit; reset enable_memoize');
  }
}
