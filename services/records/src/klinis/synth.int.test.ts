// The synthetic clinical history at a tiny scale (1,000 patients: the bench's SCALE=0.001): its shape
// (about five visits a patient, four vital signs per visit seen, a primary diagnosis per finished
// visit, allergies and "no known allergy" in their shares), every entry with its first version as the
// trigger writes it, values plausible and flagged as vital.ts says, today's clinic days in mixed
// states that the service serves as worklists and takes vital signs on, and a second run adding nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dataOf, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';
import { generateClinical, SYNTH_CLINICS } from './synth.ts';
import { isChildSql } from './synth-catalogue.ts';
import { ageInYears, flagOf, vitalByKey, vitalByLoinc, worseFlag } from './vital.ts';

const TENANT = 'rs-synth';
const PATIENTS = 1_000;

describe('synthetic clinical history', () => {
  let r: RecordsUnderTest;
  const count = async (sql: string, values: unknown[] = []) => (await r.owner.query<{ n: number }>(sql, values)).rows[0]!.n;

  before(async () => {
    r = await startRecords('synth');
    // Patients of all ages, both sexes (what the generator reads of them), set-based.
    await r.owner.query(
      `insert into records.pasien (tenant_id, no_rm, nik, nama, tempat_lahir, tanggal_lahir, jenis_kelamin, alamat, kota_kabupaten, provinsi,
                                   created_by, updated_by)
       select $1, lpad(g::text, 8, '0'), '3273' || lpad(g::text, 12, '0'), 'Pasien ' || g, 'Bandung', date '1940-01-01' + (g * 37) % 30000,
              case when g % 2 = 0 then 'P' else 'L' end, 'Jl. Merdeka No. 1', 'Kota Bandung', 'Jawa Barat', 'test', 'test'
       from generate_series(1, $2::int) g`,
      [TENANT, PATIENTS],
    );
    const result = await generateClinical(r.owner, { tenantId: TENANT, today: true, clinics: SYNTH_CLINICS, chunk: 2_000 });
    assert.equal(result.skipped, false);
    assert.equal(result.patients, PATIENTS);
  });
  after(async () => {
    await r?.stop();
  });

  test('about five visits a patient over two years, most finished, each with its status history', async () => {
    const visits = await count(
      "select count(*)::int as n from records.kunjungan where tenant_id = $1 and tanggal < (now() at time zone 'Asia/Jakarta')::date",
      [TENANT],
    );
    assert.ok(visits >= 4.5 * PATIENTS && visits <= 5.6 * PATIENTS, `${visits} past visits`);
    const span = (await r.owner.query('select max(tanggal) - min(tanggal) as days from records.kunjungan where tenant_id = $1', [TENANT]))
      .rows[0].days;
    assert.ok(span >= 700 && span <= 731, `${span} days`);
    const cancelled = await count("select count(*)::int as n from records.kunjungan where tenant_id = $1 and status = 'cancelled'", [
      TENANT,
    ]);
    assert.ok(cancelled > 0.02 * visits && cancelled < 0.07 * visits, `${cancelled} cancelled`);
    // The history a transition would have written: as many status rows as the visit has versions.
    assert.equal(
      await count(
        `select count(*)::int as n from records.kunjungan k where tenant_id = $1
         and k.version <> (select count(*) from records.kunjungan_status s where s.kunjungan_id = k.id)`,
        [TENANT],
      ),
      0,
    );
  });

  test("four vital signs a visit seen, plausible, flagged as vital.ts flags them at the patient's age; blood pressure diastolic below systolic", async () => {
    const seen = await count(
      "select count(*)::int as n from records.kunjungan where tenant_id = $1 and status in ('in-progress', 'finished')",
      [TENANT],
    );
    const { rows } = await r.owner.query<{ kode: string; isi: Record<string, number>; flag: string; lahir: string; waktu: Date }>(
      `select e.kode, e.isi, e.flag, p.tanggal_lahir::text as lahir, e.waktu from records.klinis e join records.pasien p on p.id = e.pasien_id
        where e.tenant_id = $1 and e.jenis = 'vital'`,
      [TENANT],
    );
    assert.equal(rows.length, 4 * seen);
    const flags = new Set<string>();
    for (const { kode, isi, flag, lahir, waktu } of rows) {
      const age = ageInYears(lahir, waktu);
      if (kode === '85354-9') {
        assert.ok(isi.diastolik! < isi.sistolik!);
        const [sys, dia] = [vitalByKey('sistolik')!, vitalByKey('diastolik')!];
        for (const [sign, v] of [
          [sys, isi.sistolik!],
          [dia, isi.diastolik!],
        ] as const)
          assert.ok(v >= sign.plausible[0] && v <= sign.plausible[1]);
        assert.equal(flag, worseFlag(flagOf(sys, isi.sistolik!, age), flagOf(dia, isi.diastolik!, age)));
      } else {
        const sign = vitalByLoinc(kode)!;
        assert.equal(isi.unit, sign.unit);
        assert.ok(isi.value! >= sign.plausible[0] && isi.value! <= sign.plausible[1], `${kode} ${isi.value}`);
        assert.equal(flag, flagOf(sign, isi.value!, age));
      }
      flags.add(`${kode}:${flag}`);
    }
    // The hypertensive and the febrile show as such; children's signs are mostly normal for their age.
    const children = rows.filter((row) => row.kode === '8867-4' && ageInYears(row.lahir, row.waktu) < 12);
    assert.ok(children.length > 0);
    assert.ok(children.filter((row) => row.flag === 'N').length > children.length / 2, "most children's heart rates normal for their age");
    for (const expected of ['85354-9:H', '85354-9:N', '8310-5:H', '8310-5:N']) assert.ok(flags.has(expected), expected);
  });

  test('every vital sign is taken within its visit, as records takes one: from its day (WIB) on, by its end', async () => {
    const day = "(k.tanggal::timestamp at time zone 'Asia/Jakarta')";
    const outside = await count(
      `select count(*)::int as n from records.klinis e join records.kunjungan k on k.id = e.kunjungan_id
        where e.tenant_id = $1 and e.jenis = 'vital'
          and not (e.waktu >= ${day} and (k.ended_at is null or e.waktu < ${day} + interval '1 day' or e.waktu <= k.ended_at))`,
      [TENANT],
    );
    assert.equal(outside, 0);
  });

  test('a primary diagnosis on every finished visit and none on others; some secondaries; notes on some', async () => {
    const finished = await count("select count(*)::int as n from records.kunjungan where tenant_id = $1 and status = 'finished'", [TENANT]);
    const primaries = await r.owner.query<{ n: number; visits: number }>(
      `select count(*)::int as n, count(distinct e.kunjungan_id)::int as visits from records.klinis e join records.kunjungan k on k.id = e.kunjungan_id
       where e.tenant_id = $1 and e.jenis = 'diagnosis' and e.peran = 'primary' and k.status = 'finished'`,
      [TENANT],
    );
    assert.deepEqual(primaries.rows[0], { n: finished, visits: finished });
    assert.equal(
      await count(
        "select count(*)::int as n from records.klinis e join records.kunjungan k on k.id = e.kunjungan_id where e.jenis = 'diagnosis' and k.status <> 'finished'",
      ),
      0,
    );
    const secondaries = await count("select count(*)::int as n from records.klinis where tenant_id = $1 and peran = 'secondary'", [TENANT]);
    assert.ok(secondaries > 0.05 * finished && secondaries < 0.4 * finished, `${secondaries} secondaries`);
    const unknown = await count(
      "select count(*)::int as n from records.klinis e where e.jenis = 'diagnosis' and not exists (select 1 from records.kode c where c.code = e.kode and c.system = 'icd-10')",
    );
    assert.equal(unknown, 0, 'every code is in records.kode');
    const notes = await count("select count(*)::int as n from records.klinis where tenant_id = $1 and jenis = 'catatan'", [TENANT]);
    assert.ok(notes > 0.2 * finished && notes < 0.4 * finished, `${notes} notes`);
  });

  test("children are seen at the children's clinic and adults elsewhere, antenatal care by women; no child has an adult's chronic disease", async () => {
    const misplaced = await r.owner.query<{ kode: string; anak: boolean; female: boolean; n: number }>(
      `select po.kode, ${isChildSql('p.tanggal_lahir', 'k.tanggal')} as anak, p.jenis_kelamin = 'P' as female, count(*)::int as n
       from records.kunjungan k join records.pasien p on p.id = k.pasien_id join records.poli po on po.id = k.poli_id
       where k.tenant_id = $1 group by 1, 2, 3 order by 1, 2, 3`,
      [TENANT],
    );
    const at = (kode: string, anak: boolean, female?: boolean) =>
      misplaced.rows
        .filter((x) => x.kode === kode && x.anak === anak && (female === undefined || x.female === female))
        .reduce((n, x) => n + x.n, 0);
    assert.ok(at('ANAK', true) > 0 && at('PD', false) > 0 && at('KIA', false, true) > 0, JSON.stringify(misplaced.rows));
    const wrong = misplaced.rows.filter((x) => (x.kode === 'ANAK') !== x.anak || (x.kode === 'KIA' && !x.female));
    assert.deepEqual(wrong, [], "no adult at the children's clinic, no child elsewhere, no man at antenatal care (today included)");
    const chronic = await r.owner.query<{ kode: string }>(
      `select e.kode from records.klinis e join records.kunjungan k on k.id = e.kunjungan_id join records.pasien p on p.id = e.pasien_id
       where e.tenant_id = $1 and e.jenis = 'diagnosis' and ${isChildSql('p.tanggal_lahir', 'k.tanggal')}
         and e.kode in ('I10', 'E11.9', 'E78.5', 'E66.9') limit 5`,
      [TENANT],
    );
    assert.deepEqual(chronic.rows, [], "a child diagnosed with an adult's chronic disease");
  });

  test('allergies on about 8 % of patients, "no known allergy" on about half, never both', async () => {
    const { rows } = await r.owner.query<{ kategori: string; n: number }>(
      "select kategori = 'none' as is_none, count(distinct pasien_id)::int as n from records.klinis where tenant_id = $1 and jenis = 'alergi' group by 1 order by 1",
      [TENANT],
    );
    const [some, none] = [rows[0]!.n, rows[1]!.n];
    assert.ok(some >= 0.05 * PATIENTS && some <= 0.11 * PATIENTS, `${some} with allergies`);
    assert.ok(none >= 0.44 * PATIENTS && none <= 0.56 * PATIENTS, `${none} with none known`);
    const nka = (await r.owner.query("select kode, isi from records.klinis where jenis = 'alergi' and kategori = 'none' limit 1")).rows[0];
    assert.deepEqual(nka, { kode: '716186003', isi: { noneKnown: true, clinicalStatus: 'active', verificationStatus: 'confirmed' } });
    assert.equal(
      await count(
        "select count(*)::int as n from (select pasien_id from records.klinis where jenis = 'alergi' group by 1 having count(distinct kategori = 'none') > 1) x",
      ),
      0,
    );
  });

  test('every entry has its first version, as the trigger writes it', async () => {
    assert.equal(
      await count(
        `select count(*)::int as n from records.klinis e left join records.klinis_versi v on v.klinis_id = e.id and v.version = 1
         where v.klinis_id is null or v.data <> to_jsonb(e) - 'tenant_id' or v.recorded_at <> e.updated_at`,
      ),
      0,
    );
  });

  test("today: every clinic's worklist in queue order with mixed states, and it takes new vital signs and registrations", async () => {
    const doctor = await r.principal(TENANT, 'doctor', { userId: 'dr-synth' });
    const admin = await r.principal(TENANT, 'tenant_admin');
    const clinics = (
      await r.owner.query<{ id: string }>('select id::text as id from records.poli where tenant_id = $1 order by kode', [TENANT])
    ).rows;
    assert.equal(clinics.length, SYNTH_CLINICS.length);
    for (const { id } of clinics) dataOf(await r.mutate('poli.assign', { poliId: id, userId: 'dr-synth' }, admin));
    const day = dataOf<{ id: string; noAntrean: number; status: string; pasienId: string }[]>(
      await r.query('kunjungan.list', { poliId: clinics[0]!.id, limit: 200 }, doctor),
    );
    assert.ok(day.length >= 40 && day.length <= 80, `${day.length} visits today`);
    assert.deepEqual(
      day.map((v) => v.noAntrean),
      Array.from({ length: day.length }, (_, i) => i + 1),
    );
    for (const status of ['finished', 'in-progress', 'arrived', 'planned'])
      assert.ok(
        day.some((v) => v.status === status),
        status,
      );
    const open = day.find((v) => v.status === 'in-progress')!;
    const written = await r.mutate(
      'vital.record',
      { kunjunganId: open.id, measurements: [{ key: 'nadi', value: 80, unit: '/min' }] },
      doctor,
    );
    assert.equal(written.status, 200, JSON.stringify(written.body));
    assert.ok(dataOf<{ items: unknown[] }>(await r.query('klinis.riwayat', { pasienId: open.pasienId }, doctor)).items.length > 0);
    const clerk = await r.principal(TENANT, 'registration_clerk');
    const next = dataOf<{ noAntrean: number }>(
      await r.mutate('kunjungan.register', { pasienId: open.pasienId, poliId: clinics[0]!.id }, clerk),
    );
    assert.equal(next.noAntrean, day.length + 1);
  });

  test('a second run adds nothing', async () => {
    const before = await count('select count(*)::int as n from records.klinis');
    assert.equal((await generateClinical(r.owner, { tenantId: TENANT, today: true, clinics: SYNTH_CLINICS })).skipped, true);
    assert.equal(await count('select count(*)::int as n from records.klinis'), before);
  });
});
