// FHIR Encounter: the visits as valid R4 Encounters (checked against the official definitions by the
// test kit's fhirCall), read and searched under the same guard, SMART scopes, audit trail and tenant
// isolation as everything else.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertOutcome, dataOf, fhirCall, newPasien, startRecords } from '../testing/index.ts';
import type { Json, RecordsUnderTest } from '../testing/index.ts';

describe('FHIR Encounter', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let clerk: string;
  let pasienId: string;
  let otherPatient: string;
  let visit: { id: string; noKunjungan: string; tanggal: string };
  let cancelled: { id: string };

  before(async () => {
    r = await startRecords('fhirenc');
    admin = await r.principal('rs-demo', 'tenant_admin');
    clerk = await r.principal('rs-demo', 'registration_clerk');
    const poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    pasienId = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(1), admin)).id;
    otherPatient = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(2), admin)).id;
    visit = dataOf(await r.mutate('kunjungan.register', { pasienId, poliId }, clerk));
    dataOf(await r.mutate('kunjungan.arrive', { id: visit.id }, clerk));
    cancelled = dataOf(await r.mutate('kunjungan.register', { pasienId: otherPatient, poliId }, clerk));
    dataOf(await r.mutate('kunjungan.cancel', { id: cancelled.id, reason: 'pasien tidak datang' }, clerk));
  });
  after(async () => {
    await r?.stop();
  });

  test('read: an ambulatory Encounter with its status history, visit number, clinic and hospital', async () => {
    const got = await fhirCall(r, 'GET', `/Encounter/${visit.id}`, { principal: clerk });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('etag'), 'W/"2"');
    const e = got.body;
    assert.equal(e.status, 'arrived');
    assert.deepEqual(e.class, { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB', display: 'ambulatory' });
    assert.deepEqual(
      e.statusHistory.map((h: Json) => [h.status, h.period.end === undefined]),
      [
        ['planned', false],
        ['arrived', true],
      ],
    );
    assert.equal(e.subject.reference, `Patient/${pasienId}`);
    assert.deepEqual(e.identifier, [{ system: 'https://simrs.id/fhir/sid/encounter/rs-demo', value: visit.noKunjungan }]);
    assert.equal(e.location[0].location.display, 'Poli Umum');
    dataOf(await r.mutate('pengaturan.update', { organizationId: '100011961' }, admin));
    const withOrg = (await fhirCall(r, 'GET', `/Encounter/${visit.id}`, { principal: clerk })).body;
    assert.equal(withOrg.identifier[0].system, 'http://sys-ids.kemkes.go.id/encounter/100011961');
    assert.deepEqual(withOrg.serviceProvider, { reference: 'Organization/100011961' });
    const c = (await fhirCall(r, 'GET', `/Encounter/${cancelled.id}`, { principal: clerk })).body;
    assert.equal(c.status, 'cancelled');
    assert.equal(c.extension[0].valueString, 'pasien tidak datang');
    const audit = await r.owner.query("select details from records.audit_log where action = 'kunjungan.get' order by id desc limit 1");
    assert.deepEqual(audit.rows[0].details, { via: 'fhir', interaction: 'read', kunjunganId: cancelled.id });
  });

  test('search by patient, subject, status, date and _count; bad values are 400s naming the parameter', async () => {
    const ids = async (q: string) =>
      ((await fhirCall(r, 'GET', `/Encounter?${q}`, { principal: clerk })).body.entry ?? [])
        .filter((x: Json) => x.search.mode === 'match')
        .map((x: Json) => x.resource.id);
    assert.deepEqual(await ids(`patient=${pasienId}`), [visit.id]);
    assert.deepEqual(await ids(`subject=Patient/${otherPatient}`), [cancelled.id]);
    assert.deepEqual(await ids('status=cancelled'), [cancelled.id]);
    assert.deepEqual((await ids('status=arrived,cancelled')).length, 2);
    assert.deepEqual(await ids(`date=${visit.tanggal}&status=arrived`), [visit.id]);
    assert.deepEqual(await ids(`date=lt${visit.tanggal}`), []);
    assert.equal((await ids('_count=1')).length, 1);
    assertOutcome(await fhirCall(r, 'GET', '/Encounter?status=done', { principal: clerk }), 400, 'invalid');
    assertOutcome(await fhirCall(r, 'GET', '/Encounter?date=sa2026-01-01', { principal: clerk }), 400, 'invalid');
    assertOutcome(await fhirCall(r, 'GET', '/Encounter?patient=Patient/x', { principal: clerk }), 400, 'invalid');
    assertOutcome(await fhirCall(r, 'GET', '/Encounter?_count=0', { principal: clerk }), 400, 'invalid');
    assertOutcome(await fhirCall(r, 'GET', '/Encounter?constructor=1', { principal: clerk, headers: { prefer: 'handling=strict' } }), 400);
    const lenient = await fhirCall(r, 'GET', '/Encounter?constructor=1', { principal: clerk });
    assert.equal(lenient.body.entry.at(-1).search.mode, 'outcome');
  });

  test('SMART scopes: user/Encounter.rs reads visits, not patients; patient/Encounter.rs only the launch patient’s', async () => {
    const user = await r.principal('rs-demo', 'doctor', { scopes: ['user/Encounter.rs'] });
    assert.equal((await fhirCall(r, 'GET', `/Encounter/${visit.id}`, { principal: user })).status, 200);
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${pasienId}`, { principal: user }), 403, 'forbidden');
    const patientOnly = await r.principal('rs-demo', 'doctor', { scopes: ['patient/Encounter.rs'], patientId: pasienId });
    assert.equal((await fhirCall(r, 'GET', `/Encounter/${visit.id}`, { principal: patientOnly })).status, 200);
    assertOutcome(await fhirCall(r, 'GET', `/Encounter/${cancelled.id}`, { principal: patientOnly }), 404, 'not-found');
    const found = await fhirCall(r, 'GET', '/Encounter', { principal: patientOnly });
    assert.deepEqual(
      found.body.entry.map((x: Json) => x.resource.id),
      [visit.id],
    );
    const patientScope = await r.principal('rs-demo', 'doctor', { scopes: ['user/Patient.rs'] });
    assertOutcome(await fhirCall(r, 'GET', '/Encounter', { principal: patientScope }), 403, 'forbidden');
    assertOutcome(await fhirCall(r, 'GET', '/Encounter', { principal: await r.principal('rs-demo', 'auditor') }), 403, 'forbidden');
  });

  test('another hospital reads and finds none of these Encounters', async () => {
    const lain = await r.principal('rs-lain', 'tenant_admin');
    assertOutcome(await fhirCall(r, 'GET', `/Encounter/${visit.id}`, { principal: lain }), 404, 'not-found');
    const found = await fhirCall(r, 'GET', `/Encounter?patient=${pasienId}`, { principal: lain });
    assert.deepEqual(found.body.entry, []);
    assertOutcome(await fhirCall(r, 'GET', '/Encounter/not-a-uuid', { principal: clerk }), 404, 'not-found');
  });
});
