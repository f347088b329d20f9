// The development seed (`npm start` runs it): the demo hospital's clinicians each have a worklist today
// (planned, arrived, in progress) at their clinics, and its patients two years of clinical history
// (finished visits with vital signs, diagnoses in known codes, notes, allergies or none known) that a
// clinician can open; a second run adds nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isChildSql } from '../klinis/index.ts';
import { dataOf, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';
import { seedRecords } from './seed.ts';
import { parseClinicians } from './seed-clinics.ts';

const CLINICIANS = parseClinicians('dr-seed=UMUM,PD;ns-seed=UMUM');
const TABLES = ['pasien', 'poli', 'poli_staff', 'kunjungan', 'kunjungan_status', 'klinis', 'klinis_versi', 'kode'];

interface Visit {
  id: string;
  pasienId: string;
  poliNama: string;
  status: string;
  tanggal: string;
}

describe('development seed', () => {
  let r: RecordsUnderTest;
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const t of TABLES) out[t] = (await r.owner.query(`select count(*)::int as n from records.${t}`)).rows[0].n;
    return out;
  };

  before(async () => {
    r = await startRecords('seed');
    await seedRecords(r.owner, CLINICIANS);
  });
  after(async () => {
    await r?.stop();
  });

  test("each clinician's worklist today at their clinics: a patient in progress, one arrived, the rest planned", async () => {
    const clinics = new Map(
      (
        await r.owner.query<{ kode: string; id: string }>("select kode, id::text as id from records.poli where tenant_id = 'rs-demo'")
      ).rows.map((c) => [c.kode, c.id]),
    );
    for (const [userId, kodes] of CLINICIANS) {
      const who = await r.principal('rs-demo', userId.startsWith('dr') ? 'doctor' : 'nurse', { userId });
      for (const kode of kodes) {
        const day = dataOf<Visit[]>(await r.query('kunjungan.list', { poliId: clinics.get(kode), limit: 100 }, who));
        assert.deepEqual(
          day.map((v) => v.status),
          ['in-progress', 'arrived', 'planned', 'planned', 'planned', 'planned'],
          `${userId} at ${kode}`,
        );
      }
    }
  });

  test("today's children's clinic sees children, the other clinics adults", async () => {
    const { rows } = await r.owner.query<{ kode: string; anak: boolean; n: number }>(
      `select po.kode, ${isChildSql('p.tanggal_lahir', 'k.tanggal')} as anak, count(*)::int as n
       from records.kunjungan k join records.pasien p on p.id = k.pasien_id join records.poli po on po.id = k.poli_id
       where k.tenant_id = 'rs-demo' and k.created_by = 'seed' group by 1, 2 order by 1, 2`,
    );
    assert.deepEqual(rows, [
      { kode: 'ANAK', anak: true, n: 6 },
      { kode: 'PD', anak: false, n: 6 },
      { kode: 'UMUM', anak: false, n: 6 },
    ]);
  });

  test('the patients on a worklist have a clinical history the clinician can open', async () => {
    const doctor = await r.principal('rs-demo', 'doctor', { userId: 'dr-seed' });
    const poliId = (await r.owner.query("select id::text as id from records.poli where tenant_id = 'rs-demo' and kode = 'PD'")).rows[0].id;
    const [first] = dataOf<Visit[]>(await r.query('kunjungan.list', { poliId, limit: 100 }, doctor));
    const history = dataOf<{ items: Visit[] }>(await r.query('klinis.riwayat', { pasienId: first!.pasienId, limit: 50 }, doctor)).items;
    const past = history.filter((v) => v.status === 'finished');
    assert.ok(past.length >= 1, 'finished visits before today');
    const vitals = dataOf<{ kode: string; kunjunganId: string }[]>(
      await r.query('vital.list', { pasienId: first!.pasienId, limit: 200 }, doctor),
    );
    assert.equal(vitals.length, 4 * past.length, 'blood pressure, heart rate, temperature, weight at every finished visit');
    const diagnoses = dataOf<{ peran: string; kode: string }[]>(
      await r.query('diagnosis.list', { pasienId: first!.pasienId, limit: 200 }, doctor),
    );
    assert.equal(diagnoses.filter((d) => d.peran === 'primary').length, past.length);
  });

  test('diagnoses in known codes, notes, allergies and "no known allergy" across the demo patients', async () => {
    const { rows } = await r.owner.query<{ jenis: string; none_known: boolean | null; n: number }>(
      "select jenis, case when jenis = 'alergi' then kategori = 'none' end as none_known, count(*)::int as n from records.klinis where tenant_id = 'rs-demo' group by 1, 2",
    );
    const n = (jenis: string, noneKnown: boolean | null = null) =>
      rows.find((x) => x.jenis === jenis && x.none_known === noneKnown)?.n ?? 0;
    assert.ok(n('vital') > 1000 && n('diagnosis') > 300 && n('catatan') > 50, JSON.stringify(rows));
    assert.ok(n('alergi', false) > 5 && n('alergi', true) > 100, JSON.stringify(rows));
    const unknown = await r.owner.query(
      "select 1 from records.klinis e where e.jenis = 'diagnosis' and not exists (select 1 from records.kode k where k.system = 'icd-10' and k.code = e.kode)",
    );
    assert.equal(unknown.rowCount, 0);
  });

  test('a second run adds nothing', async () => {
    const first = await counts();
    await seedRecords(r.owner, CLINICIANS);
    assert.deepEqual(await counts(), first);
  });
});
