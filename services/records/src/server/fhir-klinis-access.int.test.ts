// Who reaches clinical FHIR resources: scopes (with their categories), then the role, then need-to-know
// for the patient, on every interaction; a launch patient's scope; other hospitals; and an existing
// FHIR client library (fhir-kit-client) writing, searching and reading against the real records process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from 'fhir-kit-client';
import type { FhirResource } from 'fhir-kit-client';
import { assertValidFhir } from '@simrs/platform/testing/fhir-validation';
import {
  allergy,
  AMENDMENT_REASON,
  assertOutcome,
  clinicalEntry,
  bpObservation,
  dataOf,
  diagnosisCondition,
  fhirCall,
  matchIds,
  newPasien,
  clinicalWorld,
  startRecords,
  vitalObservation,
} from '../testing/index.ts';
import type { ClinicalWorld, Json } from '../testing/index.ts';

const VS = 'http://terminology.hl7.org/CodeSystem/observation-category|vital-signs';

describe('FHIR clinical resources: scopes, roles, need-to-know, tenants', () => {
  let w: ClinicalWorld;
  let pasienId: string;
  let visit: string;
  const made: Record<string, string> = {};

  before(async () => {
    w = await clinicalWorld(await startRecords('fhirklinisacc'));
    ({ pasienId, visit } = await w.startedVisit());
    const post = async (type: string, body: Json, principal: string) => {
      const res = await fhirCall(w.r, 'POST', `/${type}`, { principal, body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return String(res.body.id);
    };
    made.Observation = await post('Observation', bpObservation(pasienId, visit, 120, 80), w.nurse);
    made.Condition = await post('Condition', diagnosisCondition(pasienId, visit, 'J06.9'), w.doctor);
    made.AllergyIntolerance = await post('AllergyIntolerance', allergy(pasienId, 'Amoksisilin'), w.nurse);
    made.food = await post('AllergyIntolerance', allergy(pasienId, 'Kacang', 'food'), w.nurse);
  });
  after(async () => {
    await w?.r.stop();
  });

  const TYPES = ['Observation', 'Condition', 'AllergyIntolerance'];
  const bodyFor = (type: string) => clinicalEntry(type, pasienId, visit);

  test('role matrix: clerks, administrators and auditors reach no clinical type; a nurse records no diagnosis', async () => {
    for (const who of [w.clerk, w.admin, w.auditor]) {
      for (const type of TYPES) {
        assertOutcome(await fhirCall(w.r, 'GET', `/${type}/${made[type]}`, { principal: who }), 403, 'forbidden');
        assertOutcome(await fhirCall(w.r, 'GET', `/${type}/${made[type]}/_history`, { principal: who }), 403, 'forbidden');
        assertOutcome(await fhirCall(w.r, 'GET', `/${type}?patient=${pasienId}`, { principal: who }), 403, 'forbidden');
        assertOutcome(await fhirCall(w.r, 'POST', `/${type}`, { principal: who, body: bodyFor(type) }), 403, 'forbidden');
      }
    }
    assertOutcome(await fhirCall(w.r, 'POST', '/Condition', { principal: w.nurse, body: bodyFor('Condition') }), 403, 'forbidden');
    assert.equal((await fhirCall(w.r, 'GET', `/Condition/${made.Condition}`, { principal: w.nurse })).status, 200);
    const nothing = await w.r.owner.query("select count(*)::int as n from records.klinis where kode = 'I10'");
    assert.equal(nothing.rows[0].n, 0);
  });

  test('scopes: none for the type is refused; .rs reads but does not write; simrs:read reads', async () => {
    const patientOnly = await w.r.principal('rs-demo', 'doctor', { userId: 'dr-ani', scopes: ['user/Patient.rs', 'user/Encounter.rs'] });
    for (const type of TYPES)
      assertOutcome(await fhirCall(w.r, 'GET', `/${type}/${made[type]}`, { principal: patientOnly }), 403, 'forbidden');
    const readOnly = await w.r.principal('rs-demo', 'doctor', {
      userId: 'dr-ani',
      scopes: ['user/Observation.rs', 'user/Condition.rs', 'user/AllergyIntolerance.rs'],
    });
    for (const type of TYPES) {
      assert.equal((await fhirCall(w.r, 'GET', `/${type}/${made[type]}`, { principal: readOnly })).status, 200);
      assert.equal(matchIds((await fhirCall(w.r, 'GET', `/${type}?patient=${pasienId}`, { principal: readOnly })).body).length > 0, true);
      assertOutcome(await fhirCall(w.r, 'POST', `/${type}`, { principal: readOnly, body: bodyFor(type) }), 403, 'forbidden');
    }
    const seed = await w.r.principal('rs-demo', 'doctor', { userId: 'dr-ani', scopes: ['simrs:read'] });
    assert.equal((await fhirCall(w.r, 'GET', `/Observation/${made.Observation}`, { principal: seed })).status, 200);
    assertOutcome(await fhirCall(w.r, 'POST', '/Observation', { principal: seed, body: bodyFor('Observation') }), 403, 'forbidden');
    const wildcard = await w.r.principal('rs-demo', 'nurse', { userId: 'ns-sri', scopes: ['user/*.cruds'] });
    assert.equal((await fhirCall(w.r, 'POST', '/Observation', { principal: wildcard, body: bodyFor('Observation') })).status, 201);
  });

  test('category scopes: a vital-signs Observation scope reads vital signs only; a category on AllergyIntolerance grants nothing', async () => {
    const vitals = await w.r.principal('rs-demo', 'doctor', {
      userId: 'dr-ani',
      patientId: pasienId,
      scopes: [`patient/Observation.rs?category=${VS}`, 'patient/Condition.rs?category=encounter-diagnosis'],
    });
    const obs = await fhirCall(w.r, 'GET', '/Observation', { principal: vitals });
    assert.ok(matchIds(obs.body).includes(made.Observation!));
    assert.deepEqual(
      matchIds((await fhirCall(w.r, 'GET', `/Observation?patient=${pasienId}&category=laboratory`, { principal: vitals })).body),
      [],
    );
    assert.equal((await fhirCall(w.r, 'GET', `/Observation/${made.Observation}`, { principal: vitals })).status, 200);
    assert.equal((await fhirCall(w.r, 'GET', `/Condition/${made.Condition}/_history/1`, { principal: vitals })).status, 200);
    assertOutcome(await fhirCall(w.r, 'GET', `/AllergyIntolerance/${made.AllergyIntolerance}`, { principal: vitals }), 403, 'forbidden');
    assertOutcome(await fhirCall(w.r, 'POST', '/Observation', { principal: vitals, body: bodyFor('Observation') }), 403, 'forbidden');
    // A category SIMRS does not record grants nothing (the contract's grammar); another scope still does.
    const labOnly = await w.r.principal('rs-demo', 'doctor', {
      userId: 'dr-ani',
      scopes: ['user/Observation.rs', 'user/Condition.rs?category=problem-list-item'],
    });
    assert.equal((await fhirCall(w.r, 'GET', `/Observation/${made.Observation}`, { principal: labOnly })).status, 200);
    assertOutcome(await fhirCall(w.r, 'GET', `/Condition/${made.Condition}`, { principal: labOnly }), 403, 'forbidden');
    const food = await w.r.principal('rs-demo', 'nurse', { userId: 'ns-sri', scopes: ['user/AllergyIntolerance.rs?category=food'] });
    assertOutcome(await fhirCall(w.r, 'GET', `/AllergyIntolerance/${made.food}`, { principal: food }), 403, 'forbidden');
    assertOutcome(await fhirCall(w.r, 'GET', `/AllergyIntolerance?patient=${pasienId}`, { principal: food }), 403, 'forbidden');
  });

  test('POST _search with a form body answers as GET', async () => {
    const res = await fetch(`${w.r.url}${w.r.prefix}/fhir/Observation/_search`, {
      method: 'POST',
      headers: { 'x-simrs-principal': w.doctor, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ patient: pasienId, code: '85354-9' }).toString(),
    });
    assert.equal(res.status, 200);
    const bundle = assertValidFhir((await res.json()) as Json, 'POST _search');
    assert.deepEqual(matchIds(bundle), [made.Observation]);
  });

  test('a patient/ scope reaches its launch patient only', async () => {
    const other = await w.startedVisit();
    const otherObs = (
      await fhirCall(w.r, 'POST', '/Observation', {
        principal: w.nurse,
        body: vitalObservation(other.pasienId, other.visit, '8867-4', 90, '/min'),
      })
    ).body.id;
    const launched = await w.r.principal('rs-demo', 'doctor', {
      userId: 'dr-ani',
      patientId: pasienId,
      scopes: ['patient/Observation.rs'],
    });
    assert.equal((await fhirCall(w.r, 'GET', `/Observation/${made.Observation}`, { principal: launched })).status, 200);
    assertOutcome(await fhirCall(w.r, 'GET', `/Observation/${otherObs}`, { principal: launched }), 404, 'not-found');
    assert.deepEqual(matchIds((await fhirCall(w.r, 'GET', `/Observation?patient=${other.pasienId}`, { principal: launched })).body), []);
    const noLaunch = await w.r.principal('rs-demo', 'doctor', { userId: 'dr-ani', scopes: ['patient/Observation.rs'] });
    assertOutcome(await fhirCall(w.r, 'GET', `/Observation/${made.Observation}`, { principal: noLaunch }), 403, 'forbidden');
  });

  test('need-to-know: a clinician without a relationship is refused until the glass is broken, which is audited', async () => {
    for (const type of TYPES) {
      assertOutcome(await fhirCall(w.r, 'GET', `/${type}/${made[type]}`, { principal: w.stranger }), 403, 'forbidden');
      assertOutcome(await fhirCall(w.r, 'GET', `/${type}?patient=${pasienId}`, { principal: w.stranger }), 403, 'forbidden');
      assertOutcome(await fhirCall(w.r, 'GET', `/${type}?encounter=${visit}`, { principal: w.stranger }), 403, 'forbidden');
    }
    dataOf(await w.r.mutate('btg.open', { pasienId, reason: 'pasien gawat darurat, dokter jaga' }, w.stranger));
    const read = await fhirCall(w.r, 'GET', `/Observation/${made.Observation}`, { principal: w.stranger });
    assert.equal(read.status, 200);
    const audit = await w.r.owner.query(
      "select break_glass, purpose, details from records.audit_log where action = 'klinis.read' and actor_user_id = 'dr-lain' order by id desc limit 1",
    );
    assert.deepEqual(
      [audit.rows[0].break_glass, audit.rows[0].purpose, audit.rows[0].details.interaction],
      [true, 'break-the-glass', 'read'],
    );
  });

  test('another hospital: a 404 by id, an empty search, no update, whoever asks', async () => {
    const lain = await w.r.principal('rs-lain', 'doctor', { userId: 'dr-ani' });
    for (const type of TYPES) {
      const path = `/${type}/${made[type]}`;
      assertOutcome(await fhirCall(w.r, 'GET', path, { principal: lain }), 404, 'not-found');
      assertOutcome(await fhirCall(w.r, 'GET', `${path}/_history`, { principal: lain }), 404, 'not-found');
      assert.deepEqual(matchIds((await fhirCall(w.r, 'GET', `/${type}?patient=${pasienId}`, { principal: lain })).body), []);
      // An update as the owner would send it (its version, a reason) changes nothing for another hospital.
      const mine = (await fhirCall(w.r, 'GET', path, { principal: w.doctor })).body;
      const amended = { ...mine, extension: [{ url: AMENDMENT_REASON, valueString: 'dari rumah sakit lain' }] };
      const put = await fhirCall(w.r, 'PUT', path, { principal: lain, body: amended, headers: { 'if-match': 'W/"1"' } });
      assertOutcome(put, 404, 'not-found');
      assert.equal(
        (await fhirCall(w.r, 'GET', path, { principal: w.doctor })).body.meta.versionId,
        mine.meta.versionId,
        `${type}: unchanged`,
      );
    }
    const admin = await w.r.principal('rs-lain', 'tenant_admin');
    const own = dataOf<{ id: string }>(await w.r.mutate('pasien.create', newPasien(4242), admin)).id;
    assert.ok(own);
    assertOutcome(await fhirCall(w.r, 'POST', '/Observation', { principal: lain, body: bodyFor('Observation') }), 404, 'not-found');
  });

  test('fhir-kit-client creates, searches and reads Observation, Condition and AllergyIntolerance, and finds and reads the Encounter', async () => {
    const { pasienId: p, visit: v } = await w.startedVisit();
    const client = (principal: string) =>
      new Client({ baseUrl: `${w.r.url}${w.r.prefix}/fhir`, customHeaders: { 'x-simrs-principal': principal } });
    const nurse = client(w.nurse);
    const doctor = client(w.doctor);
    const bodies: [Client, Json][] = [
      [nurse, bpObservation(p, v, 118, 76)],
      [doctor, diagnosisCondition(p, v, 'J06.9')],
      [nurse, allergy(p, 'Sulfa')],
    ];
    for (const [c, body] of bodies) {
      const created = assertValidFhir((await c.create({ resourceType: body.resourceType, body: body as FhirResource })) as Json, 'created');
      assert.equal(created.resourceType, body.resourceType);
      const found = assertValidFhir(
        (await doctor.search({ resourceType: body.resourceType, searchParams: { patient: p } })) as Json,
        'search',
      );
      assert.deepEqual(matchIds(found), [created.id]);
      const read = assertValidFhir((await doctor.read({ resourceType: body.resourceType, id: String(created.id) })) as Json, 'read');
      assert.equal(read.meta.versionId, '1');
    }
    // Visits are made by registration (queue number, clinic) and move through the visit procedures: FHIR reads and finds them.
    const encounters = assertValidFhir(
      (await doctor.search({ resourceType: 'Encounter', searchParams: { patient: p } })) as Json,
      'search',
    );
    assert.deepEqual(matchIds(encounters), [v]);
    const encounter = assertValidFhir((await doctor.read({ resourceType: 'Encounter', id: v })) as Json, 'read');
    assert.equal(encounter.status, 'in-progress');
    await assert.rejects(
      nurse.create({ resourceType: 'Condition', body: diagnosisCondition(p, v, 'I10', 'secondary') as FhirResource }),
      (err: Json) => {
        assert.equal(err.response.status, 403);
        return true;
      },
    );
  });
});
