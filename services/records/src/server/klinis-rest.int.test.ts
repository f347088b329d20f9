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

  test('a vital sign is measured within its visit: from its day (WIB) on; once finished, that day or by its end', async () => {
    // Visits dated by hand some days back (within the treatment relationship), so the bounds are the
    // same at any hour the test runs.
    const dated = async (visit: string, ended?: (day: string, next: string) => string) => {
      const { rows } = await r.owner.query<{ day: string }>(
        `update records.kunjungan set tanggal = (now() at time zone 'Asia/Jakarta')::date - 10 where id = $1
         returning to_char(tanggal, 'YYYY-MM-DD') as day`,
        [visit],
      );
      const day = rows[0]!.day;
      const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
      if (ended) await r.owner.query('update records.kunjungan set ended_at = $2 where id = $1', [visit, ended(day, next)]);
      return { day, before: new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10), next };
    };
    const accepted = async (input: Record<string, unknown>) => {
      const res = await rest('vital.record', { measurements: BP(120, 80), ...input }, doctor);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    const open = await started();
    const o = await dated(open);
    const atOpen = (waktu: string) => ({ kunjunganId: open, waktu, measurements: BP(120, 80) });
    const early = await refused('vital.record', atOpen(`${o.before}T23:59:59.999+07:00`), 400, 'waktu');
    assert.equal(early, `waktu: the visit is on ${o.day}: what is recorded in it was taken from that day on`);
    await accepted(atOpen(`${o.day}T00:00:00+07:00`));
    await accepted({ kunjunganId: open });

    // Finished after midnight: that day, or up to its end.
    const late = { reason: 'Terlewat saat kunjungan', measurements: BP(120, 80) };
    const pastMidnight = await chart(r, ++n, poliId, doctor);
    dataOf(await r.mutate('kunjungan.finish', { id: pastMidnight.visit }, doctor));
    const p = await dated(pastMidnight.visit, (_, next) => `${next}T02:00:00+07:00`);
    const atLate = (waktu?: string) => ({ ...late, kunjunganId: pastMidnight.visit, ...(waktu ? { waktu } : {}) });
    await accepted(atLate(`${p.next}T01:59:59+07:00`));
    await accepted(atLate(`${p.next}T02:00:00+07:00`));
    const tooLate = await refused('vital.record', atLate(`${p.next}T02:00:01+07:00`), 400, 'waktu');
    assert.equal(
      tooLate,
      `waktu: the visit of ${p.day} is finished: what is recorded in it was taken that day or by its end (${p.next}T02:00:00.000+07:00)`,
    );
    assert.match(await refused('vital.record', atLate(), 400, 'waktu'), /; give when it was taken$/);

    // Finished the same day: up to the end of that day.
    const sameDay = await chart(r, ++n, poliId, doctor);
    dataOf(await r.mutate('kunjungan.finish', { id: sameDay.visit }, doctor));
    const d = await dated(sameDay.visit, (day) => `${day}T10:00:00+07:00`);
    await accepted({ ...late, kunjunganId: sameDay.visit, waktu: `${d.day}T23:59:59.999+07:00` });
    await refused('vital.record', { ...late, kunjunganId: sameDay.visit, waktu: `${d.next}T00:00:00+07:00` }, 400, 'waktu');
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
