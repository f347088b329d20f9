// FHIR Observation (vital signs), Condition and AllergyIntolerance: written and read through FHIR with
// the clinical procedures' own checks, every answer valid R4 (and vital signs valid against HL7's
// vital-signs profiles: the test kit's fhirCall validates what meta.profile declares), versions and
// corrections with their reason, entered-in-error kept readable but out of searches, and keyset pages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  allergy,
  AMENDMENT_REASON,
  assertOutcome,
  bpObservation,
  diagnosisCondition,
  fhirCall,
  matchIds,
  clinicalWorld,
  startRecords,
  UCUM,
  vitalObservation,
} from '../testing/index.ts';
import type { ClinicalWorld, Json } from '../testing/index.ts';

const reason = (text: string) => [{ url: AMENDMENT_REASON, valueString: text }];

describe('FHIR clinical resources', () => {
  let w: ClinicalWorld;
  before(async () => {
    w = await clinicalWorld(await startRecords('fhirklinis'));
  });
  after(async () => {
    await w?.r.stop();
  });

  test('Observation: a blood pressure panel and a single sign, as the vital-signs profile writes them', async () => {
    const { pasienId, visit } = await w.startedVisit();
    const bp = await fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body: bpObservation(pasienId, visit, 150, 95) });
    assert.equal(bp.status, 201, JSON.stringify(bp.body));
    assert.equal(bp.headers.get('etag'), 'W/"1"');
    assert.match(bp.headers.get('location') ?? '', new RegExp(`/fhir/Observation/${bp.body.id}/_history/1$`));
    const o = bp.body;
    assert.equal(o.status, 'final');
    assert.deepEqual(o.meta.profile, ['http://hl7.org/fhir/StructureDefinition/vitalsigns', 'http://hl7.org/fhir/StructureDefinition/bp']);
    assert.equal(o.category[0].coding[0].code, 'vital-signs');
    assert.deepEqual(o.code.coding[0], {
      system: 'http://loinc.org',
      code: '85354-9',
      display: 'Blood pressure panel with all children optional',
    });
    // The bp profile's component slices (the validator cannot match them): checked here.
    assert.deepEqual(
      o.component.map((c: Json) => [
        c.code.coding[0].system,
        c.code.coding[0].code,
        c.valueQuantity.value,
        c.valueQuantity.system,
        c.valueQuantity.code,
      ]),
      [
        ['http://loinc.org', '8480-6', 150, UCUM, 'mm[Hg]'],
        ['http://loinc.org', '8462-4', 95, UCUM, 'mm[Hg]'],
      ],
    );
    assert.equal(o.valueQuantity, undefined);
    assert.deepEqual(o.interpretation[0].coding[0], {
      system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation',
      code: 'H',
      display: 'High',
    });
    assert.deepEqual(o.identifier, [{ system: 'http://sys-ids.kemkes.go.id/observation/100011961', value: o.id }]);
    assert.equal(o.subject.reference, `Patient/${pasienId}`);
    assert.equal(o.encounter.reference, `Encounter/${visit}`);
    assert.equal(o.performer[0].identifier.value, 'ns-sri');
    assert.ok(!Number.isNaN(Date.parse(o.effectiveDateTime)));
    const audit = await w.r.owner.query(
      "select details, purpose from records.audit_log where action = 'klinis.record' order by id desc limit 1",
    );
    assert.deepEqual(
      [audit.rows[0].details.via, audit.rows[0].details.interaction, audit.rows[0].purpose],
      ['fhir', 'create', 'treatment'],
    );

    const hr = await fhirCall(w.r, 'POST', '/Observation', {
      principal: w.nurse,
      body: vitalObservation(pasienId, visit, '8867-4', 38, '/min'),
    });
    assert.equal(hr.status, 201);
    assert.deepEqual(hr.body.valueQuantity, { value: 38, unit: 'beats/minute', system: UCUM, code: '/min' });
    assert.equal(hr.body.interpretation[0].coding[0].code, 'LL');
    assert.ok(hr.body.meta.profile.includes('http://hl7.org/fhir/StructureDefinition/heartrate'));

    // A toddler's heart rate of 120 is normal for its age, an adult's high.
    const toddler = await w.startedVisit({ tanggalLahir: new Date(Date.now() - 2 * 365.25 * 86_400_000).toISOString().slice(0, 10) });
    for (const [who, flag] of [
      [toddler, 'N'],
      [{ pasienId, visit }, 'H'],
    ] as const) {
      const created = await fhirCall(w.r, 'POST', '/Observation', {
        principal: w.nurse,
        body: vitalObservation(who.pasienId, who.visit, '8867-4', 120, '/min'),
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.interpretation[0].coding[0].code, flag);
    }

    const minimal = await fhirCall(w.r, 'POST', '/Observation', {
      principal: w.nurse,
      body: vitalObservation(pasienId, visit, '8310-5', 36.8, 'Cel'),
      headers: { prefer: 'return=minimal' },
    });
    assert.equal(minimal.status, 201);
    assert.deepEqual(minimal.body, {});
  });

  test('Observation: implausible, wrong unit, unknown code and unknown elements are 400s naming the element', async () => {
    const { pasienId, visit } = await w.startedVisit();
    const post = (body: Json) => fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body });
    const implausible = await post(bpObservation(pasienId, visit, 900, 80));
    assert.match(assertOutcome(implausible, 400, 'value'), /not plausible/);
    assert.deepEqual(implausible.body.issue[0].expression, ['Observation.component[0].valueQuantity.value']);
    const unit = await post(vitalObservation(pasienId, visit, '8310-5', 98.6, '[degF]'));
    assertOutcome(unit, 400, 'value');
    assert.deepEqual(unit.body.issue[0].expression, ['Observation.valueQuantity.code']);
    const single = await post(vitalObservation(pasienId, visit, '8867-4', 500, '/min'));
    assert.deepEqual(single.body.issue[0].expression, ['Observation.valueQuantity.value']);
    const code = await post(vitalObservation(pasienId, visit, '1234-5', 1, '/min'));
    assertOutcome(code, 400, 'invalid');
    assert.deepEqual(code.body.issue[0].expression, ['Observation.code']);
    const extra = await post({ ...vitalObservation(pasienId, visit, '8867-4', 80, '/min'), bodySite: { text: 'arm' } });
    assertOutcome(extra, 400, 'not-supported');
    assert.deepEqual(extra.body.issue[0].expression, ['Observation.bodySite']);
    const noVisit = await post({ ...vitalObservation(pasienId, visit, '8867-4', 80, '/min'), encounter: undefined });
    assertOutcome(noVisit, 400, 'required');
    const other = await w.startedVisit();
    const mismatch = await post(vitalObservation(other.pasienId, visit, '8867-4', 80, '/min'));
    assertOutcome(mismatch, 400);
    const count = await w.r.owner.query('select count(*)::int as n from records.klinis where kunjungan_id = $1', [visit]);
    assert.equal(count.rows[0].n, 0, 'nothing written');
  });

  test('read, vread, history; update needs the version and a reason; stale is 412 (If-Match) or 409 (meta.versionId)', async () => {
    const { pasienId, visit } = await w.startedVisit();
    const created = (
      await fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body: vitalObservation(pasienId, visit, '8867-4', 80, '/min') })
    ).body;
    const path = `/Observation/${created.id}`;
    const read = await fhirCall(w.r, 'GET', path, { principal: w.doctor });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('etag'), 'W/"1"');
    const put = (body: Json, headers: Record<string, string> = {}) => fhirCall(w.r, 'PUT', path, { principal: w.nurse, body, headers });
    const corrected = { ...created, valueQuantity: { value: 88, unit: '/min', system: UCUM, code: '/min' } };
    assertOutcome(await put({ ...corrected, meta: undefined }), 412, 'conflict');
    const noReason = await put(corrected, { 'if-match': 'W/"1"' });
    assert.match(assertOutcome(noReason, 400, 'required'), /amendment-reason/);
    const ok = await put({ ...corrected, extension: reason('salah ketik nadi') }, { 'if-match': 'W/"1"' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.status, 'amended');
    assert.equal(ok.body.meta.versionId, '2');
    assert.equal(ok.body.valueQuantity.value, 88);
    assert.deepEqual(ok.body.extension, reason('salah ketik nadi'));
    assertOutcome(await put({ ...corrected, extension: reason('lagi lagi') }, { 'if-match': 'W/"1"' }), 412, 'conflict');
    assertOutcome(await put({ ...corrected, extension: reason('lagi lagi') }), 409, 'conflict');
    assertOutcome(await put({ ...corrected, id: undefined, extension: reason('lagi lagi') }, { 'if-match': 'W/"2"' }), 400);
    const v1 = await fhirCall(w.r, 'GET', `${path}/_history/1`, { principal: w.doctor });
    assert.equal(v1.body.valueQuantity.value, 80);
    assert.equal(v1.body.status, 'final');
    assertOutcome(await fhirCall(w.r, 'GET', `${path}/_history/9`, { principal: w.doctor }), 404, 'not-found');
    const history = await fhirCall(w.r, 'GET', `${path}/_history`, { principal: w.doctor });
    assert.equal(history.body.type, 'history');
    assert.deepEqual(
      history.body.entry.map((e: Json) => [e.resource.meta.versionId, e.request.method]),
      [
        ['2', 'PUT'],
        ['1', 'POST'],
      ],
    );
    const audit = await w.r.owner.query(
      "select details, purpose from records.audit_log where action = 'klinis.read' order by id desc limit 1",
    );
    assert.equal(audit.rows[0].details.via, 'fhir');
    assert.equal(audit.rows[0].details.interaction, 'history');
    assert.equal(audit.rows[0].purpose, 'treatment');
  });

  test('entered-in-error: an update with that status, with its reason; readable by id, out of searches unless asked', async () => {
    const { pasienId, visit } = await w.startedVisit();
    const created = (
      await fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body: vitalObservation(pasienId, visit, '2708-6', 97, '%') })
    ).body;
    const path = `/Observation/${created.id}`;
    const eie = await fhirCall(w.r, 'PUT', path, {
      principal: w.nurse,
      body: { ...created, status: 'entered-in-error', extension: reason('pasien yang salah') },
      headers: { 'if-match': 'W/"1"' },
    });
    assert.equal(eie.status, 200, JSON.stringify(eie.body));
    assert.equal(eie.body.status, 'entered-in-error');
    assert.equal((await fhirCall(w.r, 'GET', path, { principal: w.doctor })).body.status, 'entered-in-error');
    assert.deepEqual(matchIds((await fhirCall(w.r, 'GET', `/Observation?patient=${pasienId}`, { principal: w.doctor })).body), []);
    const asked = await fhirCall(w.r, 'GET', `/Observation?patient=${pasienId}&status=entered-in-error`, { principal: w.doctor });
    assert.deepEqual(matchIds(asked.body), [created.id]);
    const again = await fhirCall(w.r, 'PUT', path, {
      principal: w.nurse,
      body: { ...created, extension: reason('lagi lagi') },
      headers: { 'if-match': 'W/"2"' },
    });
    assertOutcome(again, 409, 'conflict');
  });

  test('an update corrects what was found, never when or in which visit: another time or Encounter is a 400 naming it', async () => {
    const { pasienId, visit } = await w.startedVisit();
    const created = (
      await fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body: vitalObservation(pasienId, visit, '8867-4', 80, '/min') })
    ).body;
    const put = (body: Json) =>
      fhirCall(w.r, 'PUT', `/Observation/${created.id}`, {
        principal: w.nurse,
        body: { ...body, extension: reason('salah ketik nadi') },
        headers: { 'if-match': `W/"${body.meta.versionId}"` },
      });
    const moved = new Date(Date.parse(created.effectiveDateTime) - 60_000).toISOString();
    const earlier = await put({ ...created, effectiveDateTime: moved });
    assert.match(assertOutcome(earlier, 400, 'value'), /when .* never changes/);
    assert.deepEqual(earlier.body.issue[0].expression, ['Observation.effectiveDateTime']);
    const other = await w.startedVisit();
    const elsewhere = await put({ ...created, encounter: { reference: `Encounter/${other.visit}` } });
    assertOutcome(elsewhere, 400, 'value');
    assert.deepEqual(elsewhere.body.issue[0].expression, ['Observation.encounter']);
    const someoneElse = await put({ ...created, subject: { reference: `Patient/${other.pasienId}` } });
    assert.match(assertOutcome(someoneElse, 400, 'value'), /whom an entry is about never changes/);
    assert.deepEqual(someoneElse.body.issue[0].expression, ['Observation.subject']);
    const retracting = await put({ ...created, status: 'entered-in-error', encounter: { reference: `Encounter/${other.visit}` } });
    assertOutcome(retracting, 400, 'value');
    assert.deepEqual(retracting.body.issue[0].expression, ['Observation.encounter'], 'nor when marking it entered-in-error');
    // The same instant in WIB, and to the second (as a client that keeps seconds sends it back), is the same time.
    const stored = Date.parse(created.effectiveDateTime);
    const wib = (ms: number, digits: number) => new Date(ms + 7 * 3_600_000).toISOString().slice(0, digits ? 20 + digits : 19) + '+07:00';
    const ok = await put({ ...created, effectiveDateTime: wib(stored, 3), valueQuantity: { ...created.valueQuantity, value: 84 } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.effectiveDateTime, created.effectiveDateTime);
    const toTheSecond = await put({
      ...ok.body,
      effectiveDateTime: wib(stored, 0),
      valueQuantity: { ...created.valueQuantity, value: 86 },
    });
    assert.equal(toTheSecond.status, 200, JSON.stringify(toTheSecond.body));
  });

  test('an Observation is taken within its Encounter: effectiveDateTime before its day is a 400 naming it', async () => {
    const { pasienId, visit } = await w.startedVisit();
    const body = { ...vitalObservation(pasienId, visit, '8867-4', 72, '/min'), effectiveDateTime: '2025-06-01T08:00:00+07:00' };
    const res = await fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body });
    assertOutcome(res, 400, 'value');
    assert.deepEqual(res.body.issue[0].expression, ['Observation.effectiveDateTime']);
    assert.match(res.body.issue[0].diagnostics, /the visit is on \d{4}-\d{2}-\d{2}/);
  });

  test('search: patient, subject, encounter, date, code, category, status, _lastUpdated, _sort, keyset pages', async () => {
    const { pasienId, visit } = await w.startedVisit();
    await w.openSince(visit, '2026-01-01');
    const ids: string[] = [];
    for (const [i, value] of [70, 72, 74, 76, 78].entries()) {
      const body = { ...vitalObservation(pasienId, visit, '8867-4', value, '/min'), effectiveDateTime: `2026-01-0${i + 1}T08:00:00+07:00` };
      const res = await fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.id);
    }
    const bp = (await fhirCall(w.r, 'POST', '/Observation', { principal: w.nurse, body: bpObservation(pasienId, visit, 120, 80) })).body.id;
    const search = async (q: string) => (await fhirCall(w.r, 'GET', `/Observation?${q}`, { principal: w.doctor })).body;
    assert.deepEqual(matchIds(await search(`patient=${pasienId}`)), [bp, ...[...ids].reverse()]);
    assert.deepEqual(matchIds(await search(`subject=Patient/${pasienId}&_sort=date`)), [...ids, bp]);
    assert.deepEqual(matchIds(await search(`encounter=Encounter/${visit}&code=http://loinc.org|85354-9`)), [bp]);
    assert.deepEqual(matchIds(await search(`patient=${pasienId}&code=8867-4&date=ge2026-01-03&date=lt2026-01-05`)), [ids[3], ids[2]]);
    assert.deepEqual(matchIds(await search(`patient=${pasienId}&date=2026-01-02`)), [ids[1]]);
    // 08:00 WIB is 01:00 UTC: the hospital's day, not UTC's, and an instant with its zone as written.
    assert.deepEqual(matchIds(await search(`patient=${pasienId}&date=lt2026-01-02T01:00:00Z&date=gt2026-01-01T00:59:59Z`)), [ids[0]]);
    assert.deepEqual(matchIds(await search(`patient=${pasienId}&date=ne2026-01`)), [bp]);
    assert.deepEqual(matchIds(await search(`patient=${pasienId}&category=laboratory`)), []);
    assert.equal(
      matchIds(await search(`patient=${pasienId}&category=http://terminology.hl7.org/CodeSystem/observation-category|vital-signs`)).length,
      6,
    );
    assert.equal(matchIds(await search(`patient=${pasienId}&status=final`)).length, 6);
    assert.deepEqual(matchIds(await search(`patient=${pasienId}&status=amended`)), []);
    assert.equal(matchIds(await search(`patient=${pasienId}&_lastUpdated=gt2020-01-01&_sort=-_lastUpdated`))[0], bp);
    // Keyset pages of two: every entry once, in order, the last page without next.
    const seen: string[] = [];
    let page: Json | undefined = await search(`patient=${pasienId}&_count=2`);
    for (let i = 0; i < 5 && page; i++) {
      seen.push(...matchIds(page));
      const next: string | undefined = page.link.find((l: Json) => l.relation === 'next')?.url;
      page = next ? (await fhirCall(w.r, 'GET', next, { principal: w.doctor })).body : undefined;
    }
    assert.deepEqual(seen, [bp, ...[...ids].reverse()]);
    assertOutcome(await fhirCall(w.r, 'GET', `/Observation?patient=${pasienId}&_count=2&_cursor=abc`, { principal: w.doctor }), 400);
    const refused = await fhirCall(w.r, 'GET', '/Observation?code=8867-4', { principal: w.doctor });
    assert.match(assertOutcome(refused, 400, 'required'), /patient .*or encounter/);
    assertOutcome(await fhirCall(w.r, 'GET', `/Observation?patient=${pasienId}&status=done`, { principal: w.doctor }), 400, 'invalid');
    assertOutcome(await fhirCall(w.r, 'GET', `/Observation?patient=${pasienId}&date=2026-13`, { principal: w.doctor }), 400, 'invalid');
    assertOutcome(await fhirCall(w.r, 'GET', `/Observation?patient=${pasienId}&_sort=code`, { principal: w.doctor }), 400, 'not-supported');
  });

  test('Condition: an encounter diagnosis in ICD-10; unknown codes refused; one primary; clinical-status search', async () => {
    const { pasienId, visit } = await w.startedVisit();
    const post = (body: Json) => fhirCall(w.r, 'POST', '/Condition', { principal: w.doctor, body });
    const created = await post(diagnosisCondition(pasienId, visit, 'J06.9'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const c = created.body;
    assert.deepEqual(c.code.coding[0], {
      system: 'http://hl7.org/fhir/sid/icd-10',
      code: 'J06.9',
      display: 'Acute upper respiratory infection, unspecified',
    });
    assert.equal(c.clinicalStatus.coding[0].code, 'active');
    assert.equal(c.verificationStatus.coding[0].code, 'confirmed');
    assert.equal(c.category[0].coding[0].code, 'encounter-diagnosis');
    assert.equal(c.identifier[0].system, 'http://sys-ids.kemkes.go.id/condition/100011961');
    assert.ok(c.recordedDate);
    const unknown = await post(diagnosisCondition(pasienId, visit, 'Z99.9', 'secondary'));
    assert.match(assertOutcome(unknown, 400, 'value'), /not a known ICD-10 code/);
    assert.deepEqual(unknown.body.issue[0].expression, ['Condition.code']);
    assertOutcome(await post(diagnosisCondition(pasienId, visit, 'I10')), 409, 'conflict');
    const secondary = await post(diagnosisCondition(pasienId, visit, 'I10', 'secondary'));
    assert.equal(secondary.status, 201);
    const ids = async (q: string) => matchIds((await fhirCall(w.r, 'GET', `/Condition?${q}`, { principal: w.nurse })).body);
    assert.equal((await ids(`patient=${pasienId}`)).length, 2);
    assert.deepEqual(await ids(`patient=${pasienId}&code=http://hl7.org/fhir/sid/icd-10|I10`), [secondary.body.id]);
    assert.deepEqual(await ids(`encounter=${visit}&clinical-status=resolved`), []);
    const resolved = await fhirCall(w.r, 'PUT', `/Condition/${secondary.body.id}`, {
      principal: w.doctor,
      body: {
        ...secondary.body,
        clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'resolved' }] },
        extension: [...secondary.body.extension.filter((e: Json) => e.url !== AMENDMENT_REASON), ...reason('sudah terkontrol')],
      },
      headers: { 'if-match': 'W/"1"' },
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.deepEqual(await ids(`encounter=${visit}&clinical-status=resolved`), [secondary.body.id]);
    const eie = await fhirCall(w.r, 'PUT', `/Condition/${c.id}`, {
      principal: w.doctor,
      body: {
        ...c,
        verificationStatus: {
          coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: 'entered-in-error' }],
        },
        extension: [...c.extension, ...reason('salah pasien')],
      },
      headers: { 'if-match': 'W/"1"' },
    });
    assert.equal(eie.status, 200, JSON.stringify(eie.body));
    assert.equal(eie.body.clinicalStatus, undefined);
    assert.deepEqual(await ids(`patient=${pasienId}&verification-status=entered-in-error`), [c.id]);
  });

  test('AllergyIntolerance: a recorded allergy, no known allergy against it refused, category search', async () => {
    const { pasienId } = await w.startedVisit();
    const created = await fhirCall(w.r, 'POST', '/AllergyIntolerance', { principal: w.nurse, body: allergy(pasienId, 'Amoksisilin') });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const a = created.body;
    assert.deepEqual(a.category, ['medication']);
    assert.equal(a.code.text, 'Amoksisilin');
    assert.equal(a.criticality, 'high');
    assert.equal(a.reaction[0].manifestation[0].text, 'ruam kulit');
    assert.equal(a.patient.reference, `Patient/${pasienId}`);
    assert.equal(a.identifier[0].system, 'http://sys-ids.kemkes.go.id/allergy/100011961');
    const nka: Json = {
      ...allergy(pasienId, 'x'),
      category: undefined,
      criticality: undefined,
      reaction: undefined,
      code: { coding: [{ system: 'http://snomed.info/sct', code: '716186003', display: 'No known allergy' }] },
    };
    assertOutcome(await fhirCall(w.r, 'POST', '/AllergyIntolerance', { principal: w.nurse, body: nka }), 409, 'conflict');
    const food = await fhirCall(w.r, 'POST', '/AllergyIntolerance', { principal: w.nurse, body: allergy(pasienId, 'Udang', 'food') });
    const ids = async (q: string) => matchIds((await fhirCall(w.r, 'GET', `/AllergyIntolerance?${q}`, { principal: w.doctor })).body);
    assert.deepEqual(await ids(`patient=${pasienId}&category=food`), [food.body.id]);
    assert.equal((await ids(`patient=${pasienId}&clinical-status=active`)).length, 2);
    assert.deepEqual(await ids(`patient=${pasienId}&code=http://snomed.info/sct|716186003`), []);
    const other = await w.startedVisit();
    const none = await fhirCall(w.r, 'POST', '/AllergyIntolerance', {
      principal: w.nurse,
      body: { ...nka, patient: { reference: `Patient/${other.pasienId}` } },
    });
    assert.equal(none.status, 201, JSON.stringify(none.body));
    assert.deepEqual(none.body.code.coding[0], { system: 'http://snomed.info/sct', code: '716186003', display: 'No known allergy' });
    assert.deepEqual(await ids(`patient=${other.pasienId}&code=716186003`), [none.body.id]);
  });
});
