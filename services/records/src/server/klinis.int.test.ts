// The clinical entries of a visit end to end: vital signs checked for plausibility and flagged,
// diagnoses coded in a known ICD-10 code with one primary, allergies (or none known), the SOAP note,
// finishing only with a primary diagnosis, amendments as new versions with a reason, entered-in-error
// marks that stay readable, stale versions refused, and every write and read audited.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { timelinePage } from '../kunjungan/index.ts';
import { assertEnvelope, dataOf, newPasien, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

interface Entry {
  id: string;
  jenis: string;
  kode: string | null;
  flag: string | null;
  isi: Record<string, unknown>;
  version: number;
  enteredInError: boolean;
  reason: string | null;
  peran: string | null;
}

const BP = (sistolik: number, diastolik: number) => [
  { key: 'sistolik', value: sistolik, unit: 'mm[Hg]' },
  { key: 'diastolik', value: diastolik, unit: 'mm[Hg]' },
];

describe('clinical entries', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let nurse: string;
  let doctor: string;
  let clerk: string;
  let poliId: string;
  let n = 700;

  /** A patient with a visit at the clinic, arrived, started by the doctor. */
  async function startedVisit(patient: Record<string, unknown> = {}): Promise<{ pasienId: string; visit: string }> {
    const pasienId = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(++n, patient), admin)).id;
    const visit = dataOf<{ id: string }>(await r.mutate('kunjungan.register', { pasienId, poliId }, clerk)).id;
    dataOf(await r.mutate('kunjungan.arrive', { id: visit }, clerk));
    dataOf(await r.mutate('kunjungan.start', { id: visit }, doctor));
    return { pasienId, visit };
  }

  before(async () => {
    r = await startRecords('klinis');
    admin = await r.principal('rs-demo', 'tenant_admin');
    clerk = await r.principal('rs-demo', 'registration_clerk');
    nurse = await r.principal('rs-demo', 'nurse', { userId: 'ns-sri' });
    doctor = await r.principal('rs-demo', 'doctor', { userId: 'dr-ani' });
    poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    for (const userId of ['dr-ani', 'ns-sri']) dataOf(await r.mutate('poli.assign', { poliId, userId }, admin));
    await r.owner.query(
      "insert into records.kode (system, code, display_en, display_id) values ('icd-10', 'J06.9', 'Acute upper respiratory infection', 'Infeksi saluran napas atas akut'), ('icd-10', 'I10', 'Essential hypertension', 'Hipertensi esensial')",
    );
  });
  after(async () => {
    await r?.stop();
  });

  test('vital signs: implausible refused per field, abnormal accepted and flagged, wrong unit refused', async () => {
    const { visit } = await startedVisit();
    const bad = assertEnvelope(
      await r.mutate('vital.record', { kunjunganId: visit, measurements: BP(900, 80) }, nurse),
      400,
      'BAD_REQUEST',
    );
    assert.match(bad.data.fieldErrors?.['measurements.0.value']?.[0] ?? '', /not plausible/);
    const unit = assertEnvelope(
      await r.mutate('vital.record', { kunjunganId: visit, measurements: [{ key: 'suhu', value: 98.6, unit: '[degF]' }] }, nurse),
      400,
      'BAD_REQUEST',
    );
    assert.ok(unit.data.fieldErrors?.['measurements.0.unit']);
    assert.equal(
      (await r.owner.query("select count(*)::int as n from records.klinis where jenis = 'vital'")).rows[0].n,
      0,
      'nothing half-written',
    );
    const entries = dataOf<Entry[]>(
      await r.mutate(
        'vital.record',
        { kunjunganId: visit, measurements: [...BP(165, 95), { key: 'nadi', value: 72, unit: '/min' }] },
        nurse,
      ),
    );
    assert.deepEqual(entries.map((e) => [e.kode, e.flag]).sort(), [
      ['85354-9', 'H'],
      ['8867-4', 'N'],
    ]);
    assertEnvelope(await r.mutate('vital.record', { kunjunganId: visit, measurements: BP(120, 80) }, clerk), 403, 'FORBIDDEN');
    assertEnvelope(await r.query('vital.list', { kunjunganId: visit }, clerk), 403, 'FORBIDDEN');
    assert.equal(dataOf<Entry[]>(await r.query('vital.list', { kunjunganId: visit }, doctor)).length, 2);
  });

  test("a child's vital signs are flagged by the ranges of its age, recorded and corrected; an adult's by the adult ones", async () => {
    const fourYearsAgo = new Date(Date.now() - 4.3 * 365.25 * 86_400_000).toISOString().slice(0, 10);
    const signs = [...BP(100, 60), { key: 'nadi', value: 110, unit: '/min' }, { key: 'napas', value: 26, unit: '/min' }];
    const flagsOf = (entries: Entry[]) => entries.map((e) => [e.kode, e.flag]).sort();
    const child = await startedVisit({ tanggalLahir: fourYearsAgo });
    const recorded = dataOf<Entry[]>(await r.mutate('vital.record', { kunjunganId: child.visit, measurements: signs }, nurse));
    assert.deepEqual(flagsOf(recorded), [
      ['85354-9', 'N'],
      ['8867-4', 'N'],
      ['9279-1', 'N'],
    ]);
    const adult = await startedVisit();
    assert.deepEqual(flagsOf(dataOf<Entry[]>(await r.mutate('vital.record', { kunjunganId: adult.visit, measurements: signs }, nurse))), [
      ['85354-9', 'N'],
      ['8867-4', 'H'],
      ['9279-1', 'H'],
    ]);
    const pulse = recorded.find((e) => e.kode === '8867-4')!;
    const corrected = dataOf<Entry>(
      await r.mutate(
        'vital.amend',
        { id: pulse.id, expectedVersion: 1, reason: 'Salah ketik nadi', measurements: [{ key: 'nadi', value: 200, unit: '/min' }] },
        nurse,
      ),
    );
    assert.equal(corrected.flag, 'HH', "above the rate that suggests a child's supraventricular tachycardia");
  });

  test('diagnoses: known codes only, one primary; finishing needs it; afterwards only amendments with a reason', async () => {
    const { visit } = await startedVisit();
    assert.match(assertEnvelope(await r.mutate('kunjungan.finish', { id: visit }, doctor), 409, 'CONFLICT').message, /primary diagnosis/);
    const unknown = assertEnvelope(
      await r.mutate('diagnosis.record', { kunjunganId: visit, code: 'Z99.99', rank: 'primary' }, doctor),
      400,
      'BAD_REQUEST',
    );
    assert.match(unknown.data.fieldErrors?.code?.[0] ?? '', /not a known ICD-10 code/);
    assertEnvelope(await r.mutate('diagnosis.record', { kunjunganId: visit, code: 'J06.9', rank: 'primary' }, nurse), 403, 'FORBIDDEN');
    const primary = dataOf<Entry>(await r.mutate('diagnosis.record', { kunjunganId: visit, code: 'j06.9', rank: 'primary' }, doctor));
    assert.equal(primary.kode, 'J06.9');
    assertEnvelope(await r.mutate('diagnosis.record', { kunjunganId: visit, code: 'I10', rank: 'primary' }, doctor), 409, 'CONFLICT');
    dataOf(await r.mutate('catatan.record', { kunjunganId: visit, subjective: 'Batuk pilek 3 hari', plan: 'Parasetamol' }, doctor));
    assert.equal(dataOf<{ status: string }>(await r.mutate('kunjungan.finish', { id: visit }, doctor)).status, 'finished');
    const late = assertEnvelope(
      await r.mutate('diagnosis.record', { kunjunganId: visit, code: 'I10', rank: 'secondary' }, doctor),
      400,
      'BAD_REQUEST',
    );
    assert.ok(late.data.fieldErrors?.reason);
    dataOf(
      await r.mutate(
        'diagnosis.record',
        { kunjunganId: visit, code: 'I10', rank: 'secondary', reason: 'Tekanan darah tinggi terlewat' },
        doctor,
      ),
    );
    // The finished visit keeps its primary diagnosis: corrected, never demoted or withdrawn.
    const keep = { id: primary.id, expectedVersion: 1, reason: 'Diagnosis utama salah' };
    assert.match(
      assertEnvelope(await r.mutate('diagnosis.amend', { ...keep, code: 'J06.9', rank: 'secondary' }, doctor), 409, 'CONFLICT').message,
      /keeps a primary diagnosis/,
    );
    assertEnvelope(await r.mutate('diagnosis.retract', keep, doctor), 409, 'CONFLICT');
    assert.equal(dataOf<Entry>(await r.mutate('diagnosis.amend', { ...keep, code: 'I10', rank: 'primary' }, doctor)).kode, 'I10');
  });

  test('amendments are new versions with a reason; stale versions refused; entered-in-error stays readable', async () => {
    const { visit } = await startedVisit();
    const [bp] = dataOf<Entry[]>(await r.mutate('vital.record', { kunjunganId: visit, measurements: BP(120, 80) }, nurse));
    const noReason = assertEnvelope(
      await r.mutate('vital.amend', { id: bp!.id, expectedVersion: 1, measurements: BP(125, 80) }, nurse),
      400,
      'BAD_REQUEST',
    );
    assert.ok(noReason.data.fieldErrors?.reason);
    const amended = dataOf<Entry>(
      await r.mutate('vital.amend', { id: bp!.id, expectedVersion: 1, reason: 'Salah ketik sistolik', measurements: BP(125, 80) }, nurse),
    );
    assert.equal(amended.version, 2);
    const stale = assertEnvelope(
      await r.mutate('vital.amend', { id: bp!.id, expectedVersion: 1, reason: 'Salah ketik lagi', measurements: BP(130, 80) }, nurse),
      409,
      'CONFLICT',
    );
    assert.ok(stale.data.fieldErrors?.expectedVersion);
    const wrongSign = assertEnvelope(
      await r.mutate(
        'vital.amend',
        { id: bp!.id, expectedVersion: 2, reason: 'Salah tanda', measurements: [{ key: 'nadi', value: 80, unit: '/min' }] },
        nurse,
      ),
      400,
      'BAD_REQUEST',
    );
    assert.ok(wrongSign.data.fieldErrors?.measurements);
    const retracted = dataOf<Entry>(
      await r.mutate('vital.retract', { id: bp!.id, expectedVersion: 2, reason: 'Pasien yang salah' }, nurse),
    );
    assert.equal(retracted.enteredInError, true);
    assertEnvelope(
      await r.mutate('vital.retract', { id: bp!.id, expectedVersion: 3, reason: 'Sekali lagi salah' }, nurse),
      409,
      'CONFLICT',
    );
    const versions = dataOf<Entry[]>(await r.query('vital.history', { id: bp!.id }, doctor));
    assert.deepEqual(
      versions.map((v) => [v.version, v.isi.sistolik, v.enteredInError, v.reason]),
      [
        [3, 125, true, 'Pasien yang salah'],
        [2, 125, false, 'Salah ketik sistolik'],
        [1, 120, false, null],
      ],
    );
    assert.equal(dataOf<Entry[]>(await r.query('vital.list', { kunjunganId: visit }, doctor)).length, 0);
    assert.equal(dataOf<Entry[]>(await r.query('vital.list', { kunjunganId: visit, includeEnteredInError: true }, doctor)).length, 1);
    await assert.rejects(
      r.owner.query("update records.klinis set isi = '{}'::jsonb where id = $1", [bp!.id]),
      /next version|entered-in-error/,
      'the table itself refuses a silent change',
    );
  });

  test('allergies: none known is explicit and contradicts a recorded allergy; the note is one per visit', async () => {
    const { pasienId, visit } = await startedVisit();
    const nka = dataOf<Entry>(await r.mutate('alergi.record', { pasienId, noneKnown: true }, nurse));
    assert.equal(nka.kode, '716186003');
    assertEnvelope(await r.mutate('alergi.record', { pasienId, substance: 'Amoksisilin', category: 'medication' }, nurse), 409, 'CONFLICT');
    const changed = dataOf<Entry>(
      await r.mutate(
        'alergi.amend',
        {
          id: nka.id,
          expectedVersion: 1,
          reason: 'Alergi baru diketahui',
          substance: 'Amoksisilin',
          category: 'medication',
          criticality: 'high',
        },
        nurse,
      ),
    );
    assert.equal(changed.kode, null);
    assert.equal(changed.isi.substance, 'Amoksisilin');
    const missing = assertEnvelope(await r.mutate('alergi.record', { pasienId, category: 'food' }, nurse), 400, 'BAD_REQUEST');
    assert.ok(missing.data.fieldErrors?.substance);
    dataOf(await r.mutate('catatan.record', { kunjunganId: visit, assessment: 'ISPA' }, doctor));
    assertEnvelope(await r.mutate('catatan.record', { kunjunganId: visit, assessment: 'ISPA lagi' }, doctor), 409, 'CONFLICT');
    assertEnvelope(await r.mutate('catatan.record', { kunjunganId: visit, assessment: 'x' }, nurse), 403, 'FORBIDDEN');
    dataOf(await r.mutate('pasien.archive', { id: pasienId, reason: 'duplicate registration' }, admin));
    const archived = assertEnvelope(
      await r.mutate('vital.record', { kunjunganId: visit, measurements: BP(120, 80) }, nurse),
      409,
      'CONFLICT',
    );
    assert.match(archived.message, /archived/);
    const audit = await r.owner.query<{ action: string; n: number }>(
      "select action, count(*)::int as n from records.audit_log where action like 'klinis.%' group by action order by action",
    );
    assert.ok(audit.rows.some((a) => a.action === 'klinis.record') && audit.rows.some((a) => a.action === 'klinis.amend'));
  });
});

describe('the patient timeline (klinis.riwayat)', () => {
  let r: RecordsUnderTest;
  let doctor: string;
  let nurse: string;
  let pasienId: string;
  let otherPasien: string;
  const visits: string[] = [];

  interface Visit {
    id: string;
    status: string;
    vital: Entry[];
    diagnosis: Entry[];
    catatan: Entry | null;
  }
  type Page = { items: Visit[]; nextCursor: string | null };
  const page = async (input: Record<string, unknown>, who = doctor) => dataOf<Page>(await r.query('klinis.riwayat', input, who));

  before(async () => {
    r = await startRecords('timeline');
    const admin = await r.principal('rs-demo', 'tenant_admin');
    const clerk = await r.principal('rs-demo', 'registration_clerk');
    doctor = await r.principal('rs-demo', 'doctor', { userId: 'dr-ani' });
    nurse = await r.principal('rs-demo', 'nurse', { userId: 'ns-sri' });
    const poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    for (const userId of ['dr-ani', 'ns-sri']) dataOf(await r.mutate('poli.assign', { poliId, userId }, admin));
    await r.owner.query("insert into records.kode (system, code, display_en, display_id) values ('icd-10', 'J06.9', 'URI', 'ISPA')");
    pasienId = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(801), admin)).id;
    otherPasien = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(802), admin)).id;
    dataOf(await r.mutate('kunjungan.register', { pasienId: otherPasien, poliId }, clerk));
    // Three visits, oldest first: finished with a diagnosis and a note, finished with its note marked
    // entered in error, and one in progress with a blood pressure marked entered in error and a pulse.
    for (let i = 0; i < 3; i++) {
      const visit = dataOf<{ id: string }>(await r.mutate('kunjungan.register', { pasienId, poliId }, clerk)).id;
      visits.push(visit);
      dataOf(await r.mutate('kunjungan.arrive', { id: visit }, clerk));
      dataOf(await r.mutate('kunjungan.start', { id: visit }, doctor));
      const note = dataOf<Entry>(await r.mutate('catatan.record', { kunjunganId: visit, assessment: `ISPA ${i}` }, doctor));
      if (i === 1) dataOf(await r.mutate('catatan.retract', { id: note.id, expectedVersion: 1, reason: 'Catatan pasien lain' }, doctor));
      if (i < 2) {
        dataOf(await r.mutate('diagnosis.record', { kunjunganId: visit, code: 'J06.9', rank: 'primary' }, doctor));
        dataOf(await r.mutate('kunjungan.finish', { id: visit }, doctor));
      }
    }
    const [bp] = dataOf<Entry[]>(await r.mutate('vital.record', { kunjunganId: visits[2], measurements: BP(120, 80) }, nurse));
    dataOf(await r.mutate('vital.retract', { id: bp!.id, expectedVersion: 1, reason: 'Pasien yang salah' }, nurse));
    dataOf(await r.mutate('vital.record', { kunjunganId: visits[2], measurements: [{ key: 'nadi', value: 80, unit: '/min' }] }, nurse));
  });
  after(async () => {
    await r?.stop();
  });

  test('visits newest first, with their entries; entered-in-error ones included and marked; keyset pages', async () => {
    const first = await page({ pasienId, limit: 2 });
    assert.deepEqual(
      first.items.map((v) => v.id),
      [visits[2], visits[1]],
    );
    const [open, retractedNote] = first.items;
    assert.deepEqual(
      open!.vital.map((e) => [e.kode, e.enteredInError]),
      [
        ['8867-4', false],
        ['85354-9', true],
      ],
    );
    assert.deepEqual([open!.diagnosis, open!.catatan?.isi.assessment], [[], 'ISPA 2']);
    assert.deepEqual([retractedNote!.catatan?.enteredInError, retractedNote!.catatan?.reason], [true, 'Catatan pasien lain']);
    assert.ok(first.nextCursor);
    const second = await page({ pasienId, limit: 2, cursor: first.nextCursor });
    assert.deepEqual(
      second.items.map((v) => [v.id, v.status, v.diagnosis.map((d) => [d.kode, d.peran]), v.catatan?.enteredInError]),
      [[visits[0], 'finished', [['J06.9', 'primary']], false]],
    );
    assert.equal(second.nextCursor, null);
    assert.deepEqual(
      (await page({ pasienId })).items.map((v) => v.id),
      [...visits].reverse(),
      'default page: 20',
    );
    const exact = timelinePage.parse(first);
    assert.deepEqual(exact, first, 'the answer is exactly what the schema documents');
    const rest = await r.rest('GET', `/klinis/${pasienId}/riwayat?limit=2`, { principal: doctor });
    assert.deepEqual(rest.body, first, 'REST answers the same page');
    const audit = await r.owner.query<{ n: number }>(
      "select count(*)::int as n from records.audit_log where action = 'klinis.riwayat' and pasien_ids = array[$1::uuid]",
      [pasienId],
    );
    assert.equal(audit.rows[0]!.n, 4, 'one audit row a page, naming the patient');
  });

  test('a nurse sees it too; a kind the credential may not read is left out', async () => {
    assert.deepEqual(await page({ pasienId }, nurse), await page({ pasienId }));
    // A token that reads patients but no Observation, Condition or DocumentReference: the visits alone.
    const patientsOnly = await r.principal('rs-demo', 'doctor', { userId: 'dr-ani', scopes: ['user/Patient.r'] });
    const items = (await page({ pasienId }, patientsOnly)).items;
    assert.deepEqual(
      items.map((v) => v.id),
      [...visits].reverse(),
    );
    assert.ok(items.every((v) => v.vital.length === 0 && v.diagnosis.length === 0 && v.catatan === null));
  });

  test("a cursor of another patient's timeline, another listing's or a forged one is a 400", async () => {
    const { nextCursor } = await page({ pasienId, limit: 1 });
    assertEnvelope(await r.query('klinis.riwayat', { pasienId: otherPasien, cursor: nextCursor }, doctor), 400, 'BAD_REQUEST');
    const pasienCursor = dataOf<{ nextCursor: string }>(
      await r.query('pasien.list', { limit: 1 }, await r.principal('rs-demo', 'tenant_admin')),
    ).nextCursor;
    assertEnvelope(await r.query('klinis.riwayat', { pasienId, cursor: pasienCursor }, doctor), 400, 'BAD_REQUEST');
    assertEnvelope(await r.query('klinis.riwayat', { pasienId, cursor: `${nextCursor}x` }, doctor), 400, 'BAD_REQUEST');
    for (const limit of [0, 51, 2.5])
      assert.ok(assertEnvelope(await r.query('klinis.riwayat', { pasienId, limit }, doctor), 400).data.fieldErrors?.limit);
  });
});
