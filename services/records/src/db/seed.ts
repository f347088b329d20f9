// `node src/db/seed.ts`: development data. Gives tenant rs-demo a few hundred synthetic patients,
// three clinics and today's visits (seed-clinics.ts), two years of clinical history for its patients
// (past visits with vital signs, diagnoses, notes, allergies: klinis/synth.ts), and rs-lain some
// patients of its own (deterministic, or skipped when there already, so a second run adds nothing); and
// the development ICD-10 list while there is none (seed-codes.ts). Runs as the owner:
// MIGRATION_DATABASE_URL when set (then DATABASE_URL is the application role), else DATABASE_URL.
// Applies the migrations first, so it works on an empty database too.
import pg from 'pg';
import { COLUMNS, normalizePhone, syntheticPasien } from '../pasien/index.ts';
import type { CreatePasienInput, PasienFieldName } from '../pasien/index.ts';
import { generateClinical } from '../klinis/index.ts';
import { log } from '../server/index.ts';
import { migrateRecords } from './migrate.ts';
import { APP_GROUP_ROLE } from './roles.ts';
import { parseClinicians, seedClinics } from './seed-clinics.ts';
import { seedCodes } from './seed-codes.ts';

export const SEED_TENANTS: { tenantId: string; seed: number; count: number }[] = [
  { tenantId: 'rs-demo', seed: 1, count: 300 },
  { tenantId: 'rs-lain', seed: 2, count: 40 },
];

/** Inserts the patients that are not there yet (by NIK); returns how many were added. */
export async function seedTenant(owner: pg.ClientBase, tenantId: string, patients: CreatePasienInput[], actor = 'seed'): Promise<number> {
  await owner.query('begin');
  try {
    await owner.query("select set_config('app.tenant_id', $1, true)", [tenantId]);
    const existing = new Set(
      (await owner.query<{ nik: string }>('select nik from records.pasien where tenant_id = $1', [tenantId])).rows.map((r) => r.nik),
    );
    let added = 0;
    for (const patient of patients) {
      if (existing.has(patient.nik)) continue;
      const fields = (Object.keys(patient) as PasienFieldName[]).filter((f) => patient[f] !== undefined);
      const values = fields.map((f) => (f === 'telepon' && patient.telepon ? normalizePhone(patient.telepon) : patient[f]));
      await owner.query(
        `with n as (insert into records.rm_counter as c (tenant_id, last_value) values ($1, 1)
                    on conflict (tenant_id) do update set last_value = c.last_value + 1 returning last_value)
         insert into records.pasien (tenant_id, no_rm, created_by, updated_by, ${fields.map((f) => COLUMNS[f]).join(', ')})
         select $1, lpad(n.last_value::text, 8, '0'), $2, $2, ${fields.map((f, i) => `$${i + 3}${f === 'tanggalLahir' ? '::date' : ''}`).join(', ')} from n`,
        [tenantId, actor, ...values],
      );
      existing.add(patient.nik);
      added++;
    }
    await owner.query('commit');
    return added;
  } catch (err) {
    await owner.query('rollback');
    throw err;
  }
}

/** Everything above, for the demo tenants; `clinicians` get today's worklists at their clinics. */
export async function seedRecords(owner: pg.ClientBase, clinicians: Map<string, string[]>): Promise<void> {
  for (const t of SEED_TENANTS) {
    const patients = Array.from({ length: t.count }, (_, i) => syntheticPasien(t.seed, i));
    const added = await seedTenant(owner, t.tenantId, patients);
    log.info({ tenant: t.tenantId, added, total: t.count }, 'seeded patients');
  }
  const visits = await seedClinics(owner, 'rs-demo', clinicians);
  log.info({ tenant: 'rs-demo', visits, clinicians: clinicians.size }, 'seeded clinics and today’s visits');
  if (clinicians.size === 0) log.info('no clinicians assigned: set SEED_CLINICIANS or use poli.assign');
  log.info({ system: 'icd-10', added: await seedCodes(owner) }, 'seeded the development code list');
  const history = await generateClinical(owner, { tenantId: 'rs-demo' });
  if (!history.skipped) log.info({ tenant: 'rs-demo', visits: history.visits, seconds: history.seconds }, 'seeded clinical history');
}

if (import.meta.main) {
  const ownerUrl = process.env.MIGRATION_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!ownerUrl) {
    console.error('seed: set DATABASE_URL (or MIGRATION_DATABASE_URL) to the records database as its owner');
    process.exit(1);
  }
  let appUrl = process.env.MIGRATION_DATABASE_URL ? process.env.DATABASE_URL : undefined;
  if (!appUrl) {
    // Provision the application role without touching its password (the service sets that).
    const derived = new URL(ownerUrl);
    derived.username = APP_GROUP_ROLE;
    derived.password = '';
    appUrl = derived.toString();
  }
  try {
    await migrateRecords(ownerUrl, appUrl, log);
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    try {
      await seedRecords(owner, parseClinicians(process.env.SEED_CLINICIANS));
    } finally {
      await owner.end();
    }
  } catch (err) {
    console.error(`seed failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
