// Development clinics and today's outpatient visits for the seed (seed.ts). Clinicians are assigned by
// identity's user id, which identity generates when it seeds its users: records cannot know it, so
// the assignments come from SEED_CLINICIANS (`<user id>=<kode>,<kode>;...`, e.g. the demo doctor's
// and nurse's ids from the dashboard's users page), or are made later with poli.assign.
import type pg from 'pg';
import { isChildSql } from '../klinis/index.ts';
import { REGISTER_SQL } from '../kunjungan/index.ts';

export const SEED_CLINICS = [
  { kode: 'UMUM', nama: 'Poli Umum' },
  { kode: 'ANAK', nama: 'Poli Anak' },
  { kode: 'PD', nama: 'Poli Penyakit Dalam' },
];

/** `dr1=UMUM,PD;ns1=UMUM` as user id and clinic codes; anything else is refused. */
export function parseClinicians(text: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (text ?? '').split(';').filter((p) => p.trim() !== '')) {
    const m = /^\s*([\w.@:-]+)\s*=\s*([A-Z0-9-]+(?:\s*,\s*[A-Z0-9-]+)*)\s*$/.exec(part);
    if (!m) throw new Error(`SEED_CLINICIANS: "${part}" is not <user id>=<clinic code>,...`);
    out.set(
      m[1]!,
      m[2]!.split(',').map((k) => k.trim()),
    );
  }
  return out;
}

/**
 * Moves the start of each clinic's queue on, as a morning would have: the first two seed visits of
 * today arrived, and the first of them in progress, so that a clinician's worklist has a patient to
 * see and one waiting.
 */
async function startTheDay(owner: pg.ClientBase, tenantId: string): Promise<void> {
  const today = "(now() at time zone 'Asia/Jakarta')::date";
  const steps = [
    { status: 'arrived', role: 'registration_clerk', queue: 2, from: 'planned', started: '' },
    { status: 'in-progress', role: 'nurse', queue: 1, from: 'arrived', started: ', started_at = now()' },
  ];
  for (const step of steps) {
    await owner.query(
      `with u as (update records.kunjungan set status = $2, version = version + 1, updated_at = now(), updated_by = 'seed'${step.started}
                  where tenant_id = $1 and tanggal = ${today} and created_by = 'seed' and status = $3 and no_antrean <= $4 returning id)
       insert into records.kunjungan_status (tenant_id, kunjungan_id, status, actor_user_id, actor_role) select $1, id, $2, 'seed', $5 from u`,
      [tenantId, step.status, step.from, step.queue, step.role],
    );
  }
}

/**
 * Creates the clinics that are missing, assigns the given clinicians, and registers `perClinic`
 * visits today at each clinic unless the hospital has visits today already (so a second run adds
 * nothing), the first of each queue arrived and in progress. Returns how many visits it registered.
 */
export async function seedClinics(
  owner: pg.ClientBase,
  tenantId: string,
  clinicians: Map<string, string[]>,
  perClinic = 6,
): Promise<number> {
  await owner.query('begin');
  try {
    await owner.query("select set_config('app.tenant_id', $1, true)", [tenantId]);
    for (const c of SEED_CLINICS) {
      await owner.query(
        `insert into records.poli (kode, nama, created_by, updated_by) values ($1, $2, 'seed', 'seed') on conflict (tenant_id, kode) do nothing`,
        [c.kode, c.nama],
      );
    }
    const ids = new Map(
      (
        await owner.query<{ kode: string; id: string }>('select kode, id::text as id from records.poli where tenant_id = $1', [tenantId])
      ).rows.map((r) => [r.kode, r.id]),
    );
    for (const [userId, kodes] of clinicians) {
      for (const kode of kodes) {
        const poliId = ids.get(kode);
        if (!poliId) throw new Error(`SEED_CLINICIANS: no clinic ${kode}`);
        await owner.query(`insert into records.poli_staff (poli_id, user_id, assigned_by) values ($1, $2, 'seed') on conflict do nothing`, [
          poliId,
          userId,
        ]);
      }
    }
    // The owner may bypass row-level security (a superuser does): every query names the tenant.
    const today = await owner.query(
      "select 1 from records.kunjungan where tenant_id = $1 and tanggal = (now() at time zone 'Asia/Jakarta')::date limit 1",
      [tenantId],
    );
    let added = 0;
    if (today.rowCount === 0) {
      const patients = (
        await owner.query<{ id: string; anak: boolean }>(
          `select id::text as id, ${isChildSql('tanggal_lahir', "(now() at time zone 'Asia/Jakarta')::date")} as anak
           from records.pasien where tenant_id = $1 and status = 'active' order by no_rm`,
          [tenantId],
        )
      ).rows;
      // The children's clinic sees children, the others adults; the clinics' queues fill in turns.
      const pools = { anak: patients.filter((p) => p.anak), adult: patients.filter((p) => !p.anak) };
      for (let turn = 0; turn < perClinic; turn++) {
        for (const clinic of SEED_CLINICS) {
          const patient = (clinic.kode === 'ANAK' ? pools.anak : pools.adult).shift();
          if (!patient) continue;
          await owner.query(REGISTER_SQL, [patient.id, ids.get(clinic.kode)!, 'seed', 'registration_clerk']);
          added++;
        }
      }
      await startTheDay(owner, tenantId);
    }
    await owner.query('commit');
    return added;
  } catch (err) {
    await owner.query('rollback');
    throw err;
  }
}
