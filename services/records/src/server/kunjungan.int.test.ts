// Clinics and visits end to end: clinic administration, registration with queue and visit numbers
// (concurrent clerks never share one), the transitions and their history, the refusals (each a clear
// 4xx naming the field, nothing half-written), the audit rows, and another hospital seeing nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assertEnvelope, countRows, dataOf, newPasien, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

interface Poli {
  id: string;
  kode: string;
  nama: string;
  active: boolean;
  version: number;
}
interface Visit {
  id: string;
  noKunjungan: string;
  noAntrean: number;
  pasienId: string;
  poliId: string;
  status: string;
  version: number;
  cancelReason: string | null;
  statusHistory: { status: string; actorUserId: string; actorRole: string; reason: string | null }[];
}

describe('clinics and visits', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let clerk: string;
  let nurse: string;
  let lainAdmin: string;
  let umum: Poli;
  let anak: Poli;
  let pasienId: string;
  let n = 300;
  const patient = async () => dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(++n), admin)).id;
  const register = (poliId: string, pid: string, who = clerk) => r.mutate('kunjungan.register', { pasienId: pid, poliId }, who);

  before(async () => {
    r = await startRecords('kunjungan');
    admin = await r.principal('rs-demo', 'tenant_admin');
    clerk = await r.principal('rs-demo', 'registration_clerk');
    nurse = await r.principal('rs-demo', 'nurse');
    lainAdmin = await r.principal('rs-lain', 'tenant_admin');
    umum = dataOf<Poli>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin));
    anak = dataOf<Poli>(await r.mutate('poli.create', { kode: 'ANAK', nama: 'Poli Anak' }, admin));
    pasienId = await patient();
  });
  after(async () => {
    await r?.stop();
  });

  test('clinics: created, listed, renamed with a version check, deactivated; a kode once per hospital', async () => {
    assertEnvelope(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum Dua' }, admin), 409, 'CONFLICT');
    const bad = assertEnvelope(await r.mutate('poli.create', { kode: 'umum', nama: 'x' }, admin), 400, 'BAD_REQUEST');
    assert.ok(bad.data.fieldErrors?.kode);
    const pd = dataOf<Poli>(await r.mutate('poli.create', { kode: 'PD', nama: 'Poli Penyakit Dalam' }, admin));
    const renamed = dataOf<Poli>(await r.mutate('poli.update', { id: pd.id, expectedVersion: 1, nama: 'Poli Dalam' }, admin));
    assert.equal(renamed.version, 2);
    assertEnvelope(await r.mutate('poli.update', { id: pd.id, expectedVersion: 1, active: false }, admin), 409, 'CONFLICT');
    dataOf(await r.mutate('poli.update', { id: pd.id, active: false }, admin));
    const listed = dataOf<Poli[]>(await r.query('poli.list', {}, clerk)).map((p) => p.kode);
    assert.deepEqual(listed.sort(), ['ANAK', 'UMUM']);
    const all = dataOf<Poli[]>(await r.query('poli.list', { includeInactive: true }, await r.principal('rs-demo', 'auditor')));
    assert.equal(all.length, 3);
    const inactive = assertEnvelope(await register(pd.id, pasienId), 400, 'BAD_REQUEST');
    assert.deepEqual(inactive.data.fieldErrors, { poliId: ['the clinic is inactive'] });
  });

  test('assignments and settings are the administrator’s; everyone with a role reads them', async () => {
    const a = dataOf<{ userId: string }>(await r.mutate('poli.assign', { poliId: umum.id, userId: 'doctor@rs-demo' }, admin));
    assert.equal(a.userId, 'doctor@rs-demo');
    const staff = dataOf<{ poliId: string; userId: string }[]>(await r.query('poli.staff', { userId: 'doctor@rs-demo' }, nurse));
    assert.deepEqual(
      staff.map((s) => s.poliId),
      [umum.id],
    );
    dataOf(await r.mutate('poli.unassign', { poliId: umum.id, userId: 'doctor@rs-demo' }, admin));
    assertEnvelope(await r.mutate('poli.unassign', { poliId: umum.id, userId: 'doctor@rs-demo' }, admin), 404, 'NOT_FOUND');
    assert.deepEqual(dataOf(await r.query('pengaturan.get', undefined, clerk)), {
      relationshipDays: 30,
      btgMinutes: 60,
      organizationId: '',
    });
    const s = dataOf(await r.mutate('pengaturan.update', { organizationId: '100011961' }, admin));
    assert.deepEqual(s, { relationshipDays: 30, btgMinutes: 60, organizationId: '100011961' });
    assertEnvelope(await r.mutate('pengaturan.update', { relationshipDays: '30' }, admin), 400, 'BAD_REQUEST');
    assertEnvelope(await r.mutate('pengaturan.update', { relationshipDays: 7 }, clerk), 403, 'FORBIDDEN');
  });

  test('registration numbers the queue per clinic per day and the visit per hospital per day', async () => {
    const v1 = dataOf<Visit>(await register(anak.id, pasienId));
    const v2 = dataOf<Visit>(await register(anak.id, await patient()));
    const other = dataOf<Visit>(await register(umum.id, pasienId, admin));
    assert.deepEqual([v1.noAntrean, v2.noAntrean], [1, 2]);
    assert.equal(other.noAntrean, 1);
    assert.match(v1.noKunjungan, /^RJ-\d{8}-\d{4}$/);
    assert.equal(new Set([v1.noKunjungan, v2.noKunjungan, other.noKunjungan]).size, 3);
    assert.equal(v1.status, 'planned');
    assert.deepEqual(
      v1.statusHistory.map((h) => [h.status, h.actorUserId, h.actorRole]),
      [['planned', 'registration_clerk@rs-demo', 'registration_clerk']],
    );
    const worklist = dataOf<Visit[]>(await r.query('kunjungan.list', { poliId: anak.id }, nurse));
    assert.deepEqual(
      worklist.map((v) => v.noAntrean),
      [1, 2],
    );
    const mine = dataOf<Visit[]>(await r.query('kunjungan.list', { pasienId }, clerk));
    assert.ok(mine.length >= 2 && mine.every((v) => v.pasienId === pasienId));
    const rows = await r.owner.query<{ action: string; pasien_ids: string[] }>(
      "select action, pasien_ids::text[] from records.audit_log where action like 'kunjungan.%' order by id",
    );
    assert.deepEqual(rows.rows.slice(0, 2), [
      { action: 'kunjungan.register', pasien_ids: [pasienId] },
      { action: 'kunjungan.register', pasien_ids: [v2.pasienId] },
    ]);
  });

  test('two clerks registering at once never draw the same queue or visit number', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => patient()));
    const clerk2 = await r.principal('rs-demo', 'registration_clerk', { userId: 'clerk-2' });
    const made = await Promise.all(ids.map((id, i) => register(umum.id, id, i % 2 ? clerk : clerk2)));
    const visits = made.map((m) => dataOf<Visit>(m));
    const queue = visits.map((v) => v.noAntrean).sort((a, b) => a - b);
    assert.equal(new Set(queue).size, 12);
    assert.equal(new Set(visits.map((v) => v.noKunjungan)).size, 12);
    assert.deepEqual(
      queue,
      Array.from({ length: 12 }, (_, i) => queue[0]! + i),
      'dense: no number burnt or skipped',
    );
  });

  test('transitions follow planned, arrived, in-progress; cancel needs a reason; stale versions are refused', async () => {
    const v = dataOf<Visit>(await register(anak.id, pasienId));
    assertEnvelope(await r.mutate('kunjungan.finish', { id: v.id }, await r.principal('rs-demo', 'doctor')), 403, 'FORBIDDEN');
    const wrong = assertEnvelope(await r.mutate('kunjungan.cancel', { id: v.id }, clerk), 400, 'BAD_REQUEST');
    assert.ok(wrong.data.fieldErrors?.reason);
    const arrived = dataOf<Visit>(await r.mutate('kunjungan.arrive', { id: v.id, expectedVersion: 1 }, clerk));
    assert.equal(arrived.status, 'arrived');
    assert.match(assertEnvelope(await r.mutate('kunjungan.arrive', { id: v.id }, clerk), 409, 'CONFLICT').message, /arrived visit cannot/);
    const stale = assertEnvelope(await r.mutate('kunjungan.cancel', { id: v.id, expectedVersion: 1, reason: 'pasien pulang' }, clerk), 409);
    assert.match(stale.message, /changed meanwhile/);
    assert.match(stale.data.fieldErrors?.expectedVersion?.[0] ?? '', /version 2, expected 1/);
    const before = await countRows(r.owner, 'records.kunjungan_status', 'kunjungan_id = $1', [v.id]);
    assert.equal(before, 2, 'a refused transition appends nothing');
    const cancelled = dataOf<Visit>(await r.mutate('kunjungan.cancel', { id: v.id, expectedVersion: 2, reason: 'pasien pulang' }, clerk));
    assert.deepEqual(
      cancelled.statusHistory.map((h) => [h.status, h.reason]),
      [
        ['planned', null],
        ['arrived', null],
        ['cancelled', 'pasien pulang'],
      ],
    );
    assert.equal(cancelled.cancelReason, 'pasien pulang');
    assertEnvelope(await r.mutate('kunjungan.cancel', { id: v.id, reason: 'lagi' }, clerk), 409, 'CONFLICT');
    assertEnvelope(await r.mutate('kunjungan.arrive', { id: '00000000-0000-4000-8000-000000000000' }, clerk), 404, 'NOT_FOUND');
  });

  test('bad registrations name the field and write nothing', async () => {
    const visits = await countRows(r.owner, 'records.kunjungan');
    const counters = await r.owner.query('select sum(last_value)::int as s from records.kunjungan_counter');
    const unknown = assertEnvelope(await register('00000000-0000-4000-8000-000000000000', pasienId), 400, 'BAD_REQUEST');
    assert.deepEqual(unknown.data.fieldErrors, { poliId: ['no such clinic in this hospital'] });
    const nobody = assertEnvelope(await register(umum.id, '00000000-0000-4000-8000-000000000000'), 400, 'BAD_REQUEST');
    assert.deepEqual(nobody.data.fieldErrors, { pasienId: ['no such patient in this hospital'] });
    assertEnvelope(await r.mutate('kunjungan.register', { pasienId, poliId: umum.id, status: 'finished' }, clerk), 400, 'BAD_REQUEST');
    assertEnvelope(await r.mutate('kunjungan.register', { pasienId: 'x', poliId: umum.id }, clerk), 400, 'BAD_REQUEST');
    assert.equal(await countRows(r.owner, 'records.kunjungan'), visits);
    assert.deepEqual((await r.owner.query('select sum(last_value)::int as s from records.kunjungan_counter')).rows, counters.rows);
  });

  test('another hospital sees, counts and changes none of these visits or clinics', async () => {
    const v = dataOf<Visit>(await register(anak.id, pasienId));
    assertEnvelope(await r.query('kunjungan.get', { id: v.id }, lainAdmin), 404, 'NOT_FOUND');
    assertEnvelope(await r.mutate('kunjungan.cancel', { id: v.id, reason: 'salah rumah sakit' }, lainAdmin), 404, 'NOT_FOUND');
    assert.deepEqual(dataOf(await r.query('kunjungan.list', { poliId: anak.id }, lainAdmin)), []);
    assert.deepEqual(dataOf(await r.query('kunjungan.list', { pasienId }, lainAdmin)), []);
    assert.deepEqual(dataOf(await r.query('poli.list', { includeInactive: true }, lainAdmin)), []);
    const lainPatient = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(++n), lainAdmin)).id;
    const cross = assertEnvelope(await r.mutate('kunjungan.register', { pasienId: lainPatient, poliId: anak.id }, lainAdmin), 400);
    assert.deepEqual(cross.data.fieldErrors, { poliId: ['no such clinic in this hospital'] });
    assertEnvelope(await r.mutate('poli.update', { id: anak.id, nama: 'Diambil' }, lainAdmin), 404, 'NOT_FOUND');
    assertEnvelope(await r.mutate('poli.assign', { poliId: anak.id, userId: 'x' }, lainAdmin), 404, 'NOT_FOUND');
    assert.equal(dataOf<Visit>(await r.query('kunjungan.get', { id: v.id }, clerk)).status, 'planned');
  });

  test('the application role with no tenant sees no row of the new tables, and can neither delete nor rewrite history', async () => {
    const app = new pg.Client({ connectionString: r.appUrl });
    await app.connect();
    try {
      const tables = ['poli', 'poli_staff', 'tenant_setting', 'kunjungan', 'kunjungan_status', 'kunjungan_counter', 'btg_grant'];
      for (const table of tables) {
        const { rows } = await app.query<{ n: number }>(`select count(*)::int as n from records.${table}`);
        assert.equal(rows[0]!.n, 0, `${table} with no tenant`);
      }
      await assert.rejects(app.query('delete from records.kunjungan'), /permission denied/);
      await assert.rejects(app.query("update records.kunjungan_status set status = 'finished'"), /permission denied/);
      await assert.rejects(app.query('delete from records.btg_grant'), /permission denied/);
    } finally {
      await app.end();
    }
  });

  test('REST serves the visits as the OpenAPI document declares', async () => {
    const created = await r.rest<Visit>('POST', '/kunjungan', { principal: clerk, body: { pasienId, poliId: umum.id } });
    assert.equal(created.status, 200);
    const arrived = await r.rest<Visit>('POST', `/kunjungan/${created.body.id}/arrive`, { principal: clerk, body: { expectedVersion: 1 } });
    assert.equal(arrived.body.status, 'arrived');
    const listed = await r.rest<Visit[]>('GET', `/kunjungan?poliId=${umum.id}`, { principal: nurse });
    assert.ok(listed.body.some((v) => v.id === created.body.id));
    assertEnvelope(await r.rest('POST', `/kunjungan/${created.body.id}/cancel`, { principal: clerk, body: {} }), 400, 'BAD_REQUEST');
  });
});
