// What comes along with an Encounter search (_include=Encounter:subject, _revinclude=Observation:encounter
// and Condition:encounter), Patient/[id]/$everything, and the CapabilityStatement naming all of it;
// included clinical resources pass need-to-know like any other read.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertOutcome,
  bpObservation,
  dataOf,
  diagnosisCondition,
  fhirCall,
  allergy,
  clinicalWorld,
  startRecords,
  vitalObservation,
} from '../testing/index.ts';
import type { ClinicalWorld, Json } from '../testing/index.ts';

const byMode = (bundle: Json, mode: string) =>
  ((bundle.entry ?? []) as Json[]).filter((e) => e.search?.mode === mode).map((e) => `${e.resource.resourceType}/${e.resource.id}`);

describe('FHIR includes and $everything', () => {
  let w: ClinicalWorld;
  let pasienId: string;
  let visit: string;
  const ids: Record<string, string> = {};

  before(async () => {
    w = await clinicalWorld(await startRecords('fhireverything'));
    ({ pasienId, visit } = await w.startedVisit());
    const post = async (type: string, body: Json, principal: string) =>
      String((await fhirCall(w.r, 'POST', `/${type}`, { principal, body })).body.id);
    ids.bp = await post('Observation', bpObservation(pasienId, visit, 130, 85), w.nurse);
    ids.hr = await post('Observation', vitalObservation(pasienId, visit, '8867-4', 72, '/min'), w.nurse);
    ids.dx = await post('Condition', diagnosisCondition(pasienId, visit, 'J06.9'), w.doctor);
    ids.al = await post('AllergyIntolerance', allergy(pasienId, 'Amoksisilin'), w.nurse);
  });
  after(async () => {
    await w?.r.stop();
  });

  test('Encounter search with _include=Encounter:subject and _revinclude of Observation and Condition', async () => {
    const q = `/Encounter?patient=${pasienId}&_include=Encounter:subject&_revinclude=Observation:encounter&_revinclude=Condition:encounter`;
    const res = await fhirCall(w.r, 'GET', q, { principal: w.doctor });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(byMode(res.body, 'match'), [`Encounter/${visit}`]);
    assert.deepEqual(
      byMode(res.body, 'include').sort(),
      [`Condition/${ids.dx}`, `Observation/${ids.bp}`, `Observation/${ids.hr}`, `Patient/${pasienId}`].sort(),
    );
    assert.match(res.body.link[0].url, /_revinclude=Condition%3Aencounter/);
    // A clerk may search visits and patients, not clinical content; a stranger is left out per patient.
    const clerk = await fhirCall(w.r, 'GET', `/Encounter?patient=${pasienId}&_include=Encounter:subject`, { principal: w.clerk });
    assert.deepEqual(byMode(clerk.body, 'include'), [`Patient/${pasienId}`]);
    assertOutcome(
      await fhirCall(w.r, 'GET', `/Encounter?patient=${pasienId}&_revinclude=Observation:encounter`, { principal: w.clerk }),
      403,
      'forbidden',
    );
    const stranger = await fhirCall(w.r, 'GET', `/Encounter?patient=${pasienId}&_revinclude=Observation:encounter`, {
      principal: w.stranger,
    });
    assert.equal(stranger.status, 200);
    assert.deepEqual(byMode(stranger.body, 'include'), []);
    assert.match(JSON.stringify(byMode(stranger.body, 'outcome').length ? stranger.body.entry.at(-1) : {}), /no treatment relationship/);
    assertOutcome(await fhirCall(w.r, 'GET', '/Encounter?_include=Encounter:location', { principal: w.doctor }), 400, 'not-supported');
    assertOutcome(await fhirCall(w.r, 'GET', '/Encounter?_revinclude=Procedure:encounter', { principal: w.doctor }), 400, 'not-supported');
  });

  test('$everything: the patient, visits, vital signs, diagnoses, allergies; need-to-know applies to the clinical parts', async () => {
    const res = await fhirCall(w.r, 'GET', `/Patient/${pasienId}/$everything`, { principal: w.doctor });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.type, 'searchset');
    assert.deepEqual(
      byMode(res.body, 'match').sort(),
      [
        `Patient/${pasienId}`,
        `Encounter/${visit}`,
        `Observation/${ids.bp}`,
        `Observation/${ids.hr}`,
        `Condition/${ids.dx}`,
        `AllergyIntolerance/${ids.al}`,
      ].sort(),
    );
    const clerk = await fhirCall(w.r, 'GET', `/Patient/${pasienId}/$everything`, { principal: w.clerk });
    assert.deepEqual(byMode(clerk.body, 'match').sort(), [`Encounter/${visit}`, `Patient/${pasienId}`].sort());
    assert.equal(byMode(clerk.body, 'outcome').length, 3, 'a warning for each clinical type left out');
    const stranger = await fhirCall(w.r, 'GET', `/Patient/${pasienId}/$everything`, { principal: w.stranger });
    assert.deepEqual(byMode(stranger.body, 'match').sort(), [`Encounter/${visit}`, `Patient/${pasienId}`].sort());
    dataOf(await w.r.mutate('btg.open', { pasienId, reason: 'konsultasi darurat dari IGD' }, w.stranger));
    const glass = await fhirCall(w.r, 'GET', `/Patient/${pasienId}/$everything`, { principal: w.stranger });
    assert.equal(byMode(glass.body, 'match').length, 6);
    const audit = await w.r.owner.query(
      "select count(*)::int as n from records.audit_log where actor_user_id = 'dr-lain' and break_glass and details->>'interaction' = 'everything'",
    );
    assert.ok(audit.rows[0].n >= 3);
    const launched = await w.r.principal('rs-demo', 'doctor', { userId: 'dr-ani', patientId: pasienId, scopes: ['patient/*.rs'] });
    assert.equal(byMode((await fhirCall(w.r, 'GET', `/Patient/${pasienId}/$everything`, { principal: launched })).body, 'match').length, 6);
    const other = await w.startedVisit();
    assertOutcome(await fhirCall(w.r, 'GET', `/Patient/${other.pasienId}/$everything`, { principal: launched }), 404, 'not-found');
    const lain = await w.r.principal('rs-lain', 'doctor', { userId: 'dr-ani' });
    assertOutcome(await fhirCall(w.r, 'GET', `/Patient/${pasienId}/$everything`, { principal: lain }), 404, 'not-found');
  });

  test('the CapabilityStatement names every type, interaction, search parameter, include and the operation', async () => {
    const cs = (await fhirCall(w.r, 'GET', '/metadata')).body;
    const resources = new Map<string, Json>((cs.rest[0].resource as Json[]).map((r) => [r.type, r]));
    for (const type of ['Observation', 'Condition', 'AllergyIntolerance']) {
      const r = resources.get(type)!;
      assert.deepEqual(r.interaction.map((i: Json) => i.code).sort(), [
        'create',
        'history-instance',
        'read',
        'search-type',
        'update',
        'vread',
      ]);
      for (const p of ['patient', 'encounter', 'date', 'code', 'category', '_lastUpdated'])
        assert.ok(
          r.searchParam.some((s: Json) => s.name === p),
          `${type} ${p}`,
        );
    }
    assert.ok(resources.get('Observation')!.searchParam.some((s: Json) => s.name === 'status'));
    assert.ok(resources.get('Condition')!.searchParam.some((s: Json) => s.name === 'clinical-status'));
    assert.deepEqual(resources.get('Observation')!.supportedProfile, ['http://hl7.org/fhir/StructureDefinition/vitalsigns']);
    assert.deepEqual(resources.get('Encounter')!.searchInclude, ['Encounter:subject']);
    assert.ok(resources.get('Encounter')!.searchRevInclude.includes('Observation:encounter'));
    assert.ok(
      resources.get('Patient')!.operation.some((o: Json) => o.definition === 'http://hl7.org/fhir/OperationDefinition/Patient-everything'),
      'Patient/$everything',
    );
  });
});
