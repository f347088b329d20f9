// The clinical entries' refusals on REST: each the same status, message and fields as on tRPC, in the
// API's envelope, never a 500, and nothing half-written (no entry, no version, no audit row).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertEnvelope, BP, chart, dataOf, loadCodes, newPasien, restCaller, startRecords } from '../testing/index.ts';
import type { Chart, RecordsUnderTest, Reply } from '../testing/index.ts';

describe('clinical entries: bad input on REST', () => {
  let r: RecordsUnderTest;
  let doctor: string;
  let clerk: string;
  let poliId: string;
  let c: Chart;
  let n = 950;
  let rest: Awaited<ReturnType<typeof restCaller>>;

  const counts = async () =>
    (
      await r.owner.query(
        `select (select count(*) from records.klinis) as klinis, (select count(*) from records.klinis_versi) as versi,
                (select count(*) from records.audit_log) as audit, (select md5(string_agg(k::text, ',' order by id)) from records.kunjungan k) as visits`,
      )
    ).rows[0] as Record<string, string>;

  /**
   * Refused on REST with `status` and the `field`'s message, exactly as tRPC refuses it, and nothing
   * written by either.
   */
  async function refused(name: string, input: Record<string, unknown>, status: number, field?: string): Promise<string> {
    const before = await counts();
    const viaRest = assertEnvelope(await rest(name, input, doctor), status);
    const trpc = name.endsWith('.list') || name.endsWith('.history') ? r.query.bind(r) : r.mutate.bind(r);
    const viaTrpc = assertEnvelope(await trpc(name, input, doctor), status);
    assert.equal(viaRest.message, viaTrpc.message, name);
    assert.deepEqual(viaRest.data.fieldErrors, viaTrpc.data.fieldErrors, name);
    assert.equal(viaRest.data.path, name);
    if (field) assert.ok(viaRest.data.fieldErrors?.[field]?.length, `${name}: ${field} in ${JSON.stringify(viaRest.data.fieldErrors)}`);
    assert.deepEqual(await counts(), before, `${name}: nothing written`);
    return viaRest.message;
  }

  /** A new visit of a new patient, arrived and started by the doctor. */
  async function started(): Promise<string> {
    const admin = await r.principal('rs-demo', 'tenant_admin');
    const pasienId = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(++n), admin)).id;
    const visit = dataOf<{ id: string }>(await r.mutate('kunjungan.register', { pasienId, poliId }, clerk)).id;
    dataOf(await r.mutate('kunjungan.arrive', { id: visit }, clerk));
    dataOf(await r.mutate('kunjungan.start', { id: visit }, doctor));
    return visit;
  }

  before(async () => {
    r = await startRecords('klinisrest');
    const admin = await r.principal('rs-demo', 'tenant_admin');
    clerk = await r.principal('rs-demo', 'registration_clerk');
    doctor = await r.principal('rs-demo', 'doctor', { userId: 'dr-ani' });
    poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    dataOf(await r.mutate('poli.assign', { poliId, userId: 'dr-ani' }, admin));
    await loadCodes(r);
    rest = await restCaller(r);
    c = await chart(r, ++n, poliId, doctor);
  });
  after(async () => {
    await r?.stop();
  });

  test('an implausible vital sign and a unit of another dimension: 400 naming the field', async () => {
    const implausible = await refused('vital.record', { kunjunganId: c.visit, measurements: BP(900, 80) }, 400, 'measurements.0.value');
    assert.match(implausible, /not plausible/);
    await refused(
      'vital.record',
      { kunjunganId: c.visit, measurements: [{ key: 'suhu', value: 98.6, unit: '[degF]' }] },
      400,
      'measurements.0.unit',
    );
    await refused(
      'vital.record',
      { kunjunganId: c.visit, measurements: [{ key: 'nadi', value: '80', unit: '/min' }] },
      400,
      // The schema names the top-level field; the plausibility check the measurement's own.
      'measurements',
    );
    await refused(
      'vital.amend',
      { id: c.ids.vital, expectedVersion: 1, reason: 'Salah ketik', measurements: BP(120, 900) },
      400,
      'measurements.1.value',
    );
  });

  test('an unknown ICD-10 code, a malformed one, an unknown field: 400', async () => {
    assert.match(
      await refused('diagnosis.record', { kunjunganId: c.visit, code: 'Z99.99', rank: 'secondary' }, 400, 'code'),
      /not a known ICD-10/,
    );
    await refused('diagnosis.record', { kunjunganId: c.visit, code: 'flu', rank: 'secondary' }, 400, 'code');
    await refused('catatan.amend', { id: c.ids.catatan, expectedVersion: 1, reason: 'Koreksi', plan: 'x', drop: 'table' }, 400);
    await refused('vital.list', { kunjunganId: 'not-a-visit' }, 400, 'kunjunganId');
  });

  test('finishing without a primary diagnosis is a 409; a write to a finished visit without a reason a 400', async () => {
    const visit = await started();
    assert.match(await refused('kunjungan.finish', { id: visit }, 409), /primary diagnosis is required/);
    const finished = await chart(r, ++n, poliId, doctor);
    dataOf(await r.mutate('kunjungan.finish', { id: finished.visit }, doctor));
    await refused('vital.record', { kunjunganId: finished.visit, measurements: BP(120, 80) }, 400, 'reason');
    await refused('diagnosis.record', { kunjunganId: finished.visit, code: 'I10', rank: 'secondary' }, 400, 'reason');
    const late = await rest(
      'diagnosis.record',
      { kunjunganId: finished.visit, code: 'I10', rank: 'secondary', reason: 'Terlewat saat kunjungan' },
      doctor,
    );
    assert.equal(late.status, 200, JSON.stringify(late.body));
  });

  test('a vital sign is measured within its visit: not before its day, not after its end', async () => {
    const visit = await started();
    const dayBefore = new Date(Date.now() - 36 * 3_600_000).toISOString();
    const before = await refused('vital.record', { kunjunganId: visit, waktu: dayBefore, measurements: BP(120, 80) }, 400, 'waktu');
    assert.match(before, /visit is on \d{4}-\d{2}-\d{2}/);
    const measured = new Date(Date.now() - 1_000).toISOString();
    const during = await rest('vital.record', { kunjunganId: visit, waktu: measured, measurements: BP(120, 80) }, doctor);
    assert.equal(during.status, 200, JSON.stringify(during.body));

    // A visit finished two days ago: a late entry was taken that day, after the doctor finished or before.
    const finished = await chart(r, ++n, poliId, doctor);
    dataOf(await r.mutate('kunjungan.finish', { id: finished.visit }, doctor));
    const { rows } = await r.owner.query<{ ended: Date }>(
      `update records.kunjungan set tanggal = tanggal - 2, started_at = started_at - interval '2 days', ended_at = ended_at - interval '2 days'
       where id = $1 returning ended_at as ended`,
      [finished.visit],
    );
    const ended = new Date(rows[0]!.ended).getTime();
    const late = { kunjunganId: finished.visit, reason: 'Terlewat saat kunjungan', measurements: BP(120, 80) };
    assert.match(await refused('vital.record', late, 400, 'waktu'), /is finished: .*give when it was taken/);
    const today = new Date(Date.now() - 1_000).toISOString();
    assert.match(
      await refused('vital.record', { ...late, waktu: today }, 400, 'waktu'),
      /is finished: what is recorded in it was taken by/,
    );
    for (const waktu of [ended - 60_000, ended + 1_000]) {
      const inTime = await rest('vital.record', { ...late, waktu: new Date(waktu).toISOString() }, doctor);
      assert.equal(inTime.status, 200, JSON.stringify(inTime.body));
    }
  });

  test('a stale version, a second primary, an entry marked entered in error: 409', async () => {
    const fresh = await chart(r, ++n, poliId, doctor);
    const amended = await rest(
      'vital.amend',
      { id: fresh.ids.vital, expectedVersion: 1, reason: 'Salah ketik', measurements: BP(125, 80) },
      doctor,
    );
    assert.equal(amended.status, 200);
    await refused(
      'vital.amend',
      { id: fresh.ids.vital, expectedVersion: 1, reason: 'Salah lagi', measurements: BP(130, 80) },
      409,
      'expectedVersion',
    );
    await refused('vital.retract', { id: fresh.ids.vital, expectedVersion: 1, reason: 'Salah pasien' }, 409, 'expectedVersion');
    await refused('diagnosis.record', { kunjunganId: fresh.visit, code: 'I10', rank: 'primary' }, 409);
    assert.equal((await rest('alergi.retract', { id: fresh.ids.alergi, expectedVersion: 1, reason: 'Salah pasien' }, doctor)).status, 200);
    await refused(
      'alergi.amend',
      { id: fresh.ids.alergi, expectedVersion: 2, reason: 'Dikoreksi', substance: 'Udang', category: 'food' },
      409,
    );
  });

  test('query parameters: typed where the document types them, refused otherwise', async () => {
    const listed = async (query: string) =>
      (await r.rest('GET', `/klinis/alergi?pasienId=${c.pasienId}${query}`, { principal: doctor })) as Reply<unknown[]>;
    assert.equal((await listed('')).body.length, 1);
    assert.equal((await listed('&includeEnteredInError=true&limit=5')).status, 200);
    for (const bad of ['&includeEnteredInError=yes', '&limit=abc', '&limit=0', '&limit=1e2']) {
      const e = assertEnvelope(await listed(bad), 400, 'BAD_REQUEST');
      assert.ok(Object.keys(e.data.fieldErrors ?? {}).length, bad);
    }
    assertEnvelope(await r.rest('GET', '/klinis/vital/not-a-uuid/history', { principal: doctor }), 400, 'BAD_REQUEST');
    assertEnvelope(await r.rest('POST', '/klinis/vital', { principal: doctor, raw: '{"kunjunganId": ' }), 400);
    assertEnvelope(await r.rest('GET', `/klinis/${c.pasienId}/riwayat?limit=51`, { principal: doctor }), 400, 'BAD_REQUEST');
  });
});
