// FHIR search against the real records process: every search parameter, sorts, keyset pages through
// Bundle.link next and previous; then the rules every surface shares: tenant isolation (another
// hospital's ids, NIKs and cursors find nothing through any FHIR interaction), SMART scopes and roles
// (refusals as OperationOutcomes), and an audit row for every read, search and write.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertValidFhir } from '@simrs/platform/testing/fhir-validation';
import { assertOutcome, countRows, dataOf, fhirCall, patientFor, startRecords } from '../testing/index.ts';
import type { Json, RecordsUnderTest } from '../testing/index.ts';

const NIK = 'https://fhir.kemkes.go.id/id/nik';
const ids = (bundle: Json): string[] =>
  (bundle.entry ?? []).filter((e: Json) => e.search.mode === 'match').map((e: Json) => e.resource.id as string);
const linkOf = (bundle: Json, relation: string) => bundle.link.find((l: Json) => l.relation === relation)?.url as string | undefined;

describe('FHIR search, isolation, scopes and audit', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let lain: string;
  const made: Json[] = [];

  before(async () => {
    r = await startRecords('fhir_search');
    admin = await r.principal('rs-demo', 'tenant_admin');
    lain = await r.principal('rs-lain', 'tenant_admin');
    // 25 patients called Zulaikha <surname>, 5 Budi Zulaikha (family name), in order of registration.
    for (let i = 1; i <= 30; i++) {
      const nama = i <= 25 ? `Zulaikha ${['Aminah', 'Rahayu', 'Lestari', 'Wulandari', 'Safitri'][i % 5]!}` : `Budi Zulaikha`;
      const created = await fhirCall(r, 'POST', '/Patient', { principal: admin, body: patientFor(100 + i, { nama }) });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      made.push(created.body);
    }
  });
  after(async () => {
    await r?.stop();
  });

  test('pages through next and back through previous: the same pages, no gaps, no repeats', async () => {
    const pages: string[][] = [];
    let bundle = (await fhirCall(r, 'GET', '/Patient?name=zulaikha&_count=7', { principal: admin })).body;
    assert.equal(linkOf(bundle, 'previous'), undefined, 'the first page has no previous page');
    for (;;) {
      pages.push(ids(bundle));
      const next = linkOf(bundle, 'next');
      if (!next) break;
      bundle = (await fhirCall(r, 'GET', next, { principal: admin })).body;
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [7, 7, 7, 7, 2],
    );
    assert.equal(new Set(pages.flat()).size, 30);
    for (let k = pages.length - 2; k >= 0; k--) {
      bundle = (await fhirCall(r, 'GET', linkOf(bundle, 'previous')!, { principal: admin })).body;
      assert.deepEqual(ids(bundle), pages[k], `page ${k + 1} again`);
    }
    assert.equal(linkOf(bundle, 'previous'), undefined);
    assert.deepEqual(ids((await fhirCall(r, 'GET', linkOf(bundle, 'next')!, { principal: admin })).body), pages[1]);
    const cursor = new URL(linkOf(bundle, 'next')!).searchParams.get('_cursor')!;
    assertOutcome(
      await fhirCall(r, 'GET', `/Patient?name=budi&_cursor=${encodeURIComponent(cursor)}`, { principal: admin }),
      400,
      'invalid',
    );
  });

  test('every search parameter', async () => {
    const q = async (qs: string) => ids((await fhirCall(r, 'GET', `/Patient?${qs}&_count=100`, { principal: admin })).body).sort();
    const all = made.map((p) => p.id as string);
    const p0 = made[0]!;
    const nik = p0.identifier[0].value as string;
    const rm = p0.identifier[1].value as string;
    assert.deepEqual(await q(`identifier=${encodeURIComponent(`${NIK}|${nik}`)}`), [p0.id]);
    assert.deepEqual(await q(`identifier=${nik}`), [p0.id]);
    assert.deepEqual(await q(`identifier=${encodeURIComponent(`https://simrs.id/fhir/sid/mr/rs-demo|${rm}`)}`), [p0.id]);
    assert.deepEqual(await q(`identifier=${encodeURIComponent(`https://fhir.kemkes.go.id/id/paspor|${nik}`)}`), []);
    assert.deepEqual(await q(`_id=${made[1]!.id as string},${made[2]!.id as string}`), [made[1]!.id, made[2]!.id].sort());
    assert.deepEqual((await q('family=zulaikha')).length, 5, 'Budi Zulaikha x5: family is the last word');
    assert.deepEqual((await q('given=zulaikha')).length, 25);
    assert.deepEqual((await q('name=zul')).length, 30);
    assert.deepEqual((await q('name=zulaikha%20ami')).length, 5);
    assert.deepEqual((await q('name:exact=Budi%20Zulaikha')).length, 5);
    assert.deepEqual((await q('name:exact=budi%20zulaikha')).length, 0, 'exact is exact');
    assert.deepEqual(
      await q('name=zulaikha&name=budi'),
      made
        .slice(25)
        .map((p) => p.id as string)
        .sort(),
      'repeated parameters AND together',
    );
    const female = made
      .filter((p) => p.gender === 'female')
      .map((p) => p.id as string)
      .sort();
    assert.deepEqual(await q('name=zul&gender=female'), female);
    assert.deepEqual((await q('name=zul&gender=male,female')).length, 30);
    const birth = p0.birthDate as string;
    const sameDay = made
      .filter((p) => p.birthDate === birth)
      .map((p) => p.id as string)
      .sort();
    assert.deepEqual(await q(`name=zul&birthdate=${birth}`), sameDay);
    assert.deepEqual(
      await q(`name=zul&birthdate=${birth.slice(0, 7)}`),
      made
        .filter((p) => (p.birthDate as string).startsWith(birth.slice(0, 7)))
        .map((p) => p.id as string)
        .sort(),
    );
    const before = made
      .filter((p) => (p.birthDate as string) < '1970-01-01')
      .map((p) => p.id as string)
      .sort();
    assert.deepEqual(await q('name=zul&birthdate=lt1970'), before);
    assert.deepEqual(await q('name=zul&birthdate=ge1970'), all.filter((id: string) => !before.includes(id)).sort());
    assert.deepEqual(
      await q('name=zul&birthdate=ne1970&birthdate=lt1970'),
      before.filter((id: string) => made.find((p) => p.id === id)!.birthDate.slice(0, 4) !== '1970'),
    );
    const since = made[20]!.meta.lastUpdated as string;
    assert.deepEqual(
      await q(`_lastUpdated=ge${encodeURIComponent(since)}`),
      made
        .slice(20)
        .map((p) => p.id as string)
        .sort(),
    );
    assert.deepEqual(
      await q(`_lastUpdated=lt${encodeURIComponent(since)}`),
      made
        .slice(0, 20)
        .map((p) => p.id as string)
        .sort(),
    );
  });

  test('sorts: newest registration first by default, name order for a name search, birth date and last update on request', async () => {
    const order = async (qs: string) => ids((await fhirCall(r, 'GET', `/Patient?${qs}&_count=100`, { principal: admin })).body);
    const byRm = await order('gender=male,female');
    assert.deepEqual(
      byRm,
      [...made].reverse().map((p) => p.id),
    );
    const byBirth = await order('name=zul&_sort=birthdate');
    const dates = byBirth.map((id) => made.find((p) => p.id === id)!.birthDate as string);
    assert.deepEqual(dates, [...dates].sort());
    const desc = await order('name=zul&_sort=-birthdate');
    assert.deepEqual(
      desc.map((id) => made.find((p) => p.id === id)!.birthDate),
      [...dates].reverse(),
    );
    assert.deepEqual(
      await order('name=zul&_sort=_lastUpdated'),
      made.map((p) => p.id),
    );
    // Paging a sorted search keeps the order.
    const first = (await fhirCall(r, 'GET', '/Patient?name=zul&_sort=-_lastUpdated&_count=4', { principal: admin })).body;
    const second = (await fhirCall(r, 'GET', linkOf(first, 'next')!, { principal: admin })).body;
    assert.deepEqual(
      [...ids(first), ...ids(second)],
      [...made]
        .reverse()
        .slice(0, 8)
        .map((p) => p.id),
    );
  });

  test('_count=0 asks how many match: a searchset Bundle with the total and no entries', async () => {
    const cases = [
      [admin, 'name=zulaikha', 30],
      [admin, 'name=budi&_sort=birthdate', 5],
      [admin, 'identifier=nope', 0],
      [lain, 'name=zulaikha', 0],
    ] as const;
    for (const [principal, qs, total] of cases) {
      const bundle = (await fhirCall(r, 'GET', `/Patient?${qs}&_count=0`, { principal })).body;
      assert.equal(bundle.type, 'searchset', qs);
      assert.equal(bundle.total, total, qs);
      assert.deepEqual(bundle.entry ?? [], [], qs);
      assert.equal(linkOf(bundle, 'next'), undefined, qs);
      assert.match(linkOf(bundle, 'self')!, /_count=0/, qs);
    }
  });

  test('unknown parameters are ignored and reported in the Bundle; POST _search is the same search', async () => {
    const bundle = (await fhirCall(r, 'GET', '/Patient?name=budi&_summary=count&_count=2', { principal: admin })).body;
    const outcome = bundle.entry.find((e: Json) => e.search.mode === 'outcome');
    assert.match(outcome.resource.issue[0].diagnostics, /_summary/);
    assert.ok(!linkOf(bundle, 'self')!.includes('_summary'), 'the self link shows what was applied');
    const res = await fetch(`${r.url}${r.prefix}/fhir/Patient/_search`, {
      method: 'POST',
      headers: { 'x-simrs-principal': admin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=budi&_count=2',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(ids(assertValidFhir((await res.json()) as Json, 'POST _search')), ids(bundle));
  });

  test("another hospital's ids and NIKs are not found through any FHIR interaction", async () => {
    const p = made[3]!;
    const id = p.id as string;
    const nik = p.identifier[0].value as string;
    const missing = assertOutcome(await fhirCall(r, 'GET', '/Patient/00000000-0000-4000-8000-000000000000', { principal: lain }), 404);
    assert.equal(
      assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}`, { principal: lain }), 404, 'not-found'),
      missing,
      'no hint it exists elsewhere',
    );
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}/_history/1`, { principal: lain }), 404, 'not-found');
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}/_history`, { principal: lain }), 404, 'not-found');
    // (The medical record number of rs-demo is another hospital's identifier to rs-lain: left out.)
    assertOutcome(
      await fhirCall(r, 'PUT', `/Patient/${id}`, { principal: lain, body: { ...p, identifier: [p.identifier[0]] } }),
      404,
      'not-found',
    );
    assertOutcome(await fhirCall(r, 'DELETE', `/Patient/${id}`, { principal: lain }), 404, 'not-found');
    for (const qs of [
      `_id=${id}`,
      `identifier=${nik}`,
      `identifier=${encodeURIComponent(`${NIK}|${nik}`)}`,
      'name=zulaikha',
      `identifier=${encodeURIComponent(`https://simrs.id/fhir/sid/mr/rs-demo|${p.identifier[1].value as string}`)}`,
    ]) {
      assert.deepEqual(ids((await fhirCall(r, 'GET', `/Patient?${qs}`, { principal: lain })).body), [], qs);
    }
    const demoPage = (await fhirCall(r, 'GET', '/Patient?name=zul&_count=2', { principal: admin })).body;
    assertOutcome(await fhirCall(r, 'GET', linkOf(demoPage, 'next')!, { principal: lain }), 400, 'invalid');
    // Conditional create with rs-demo's NIK finds nothing in rs-lain: a new patient of rs-lain.
    const copy = { ...p, id: undefined, meta: undefined, identifier: [p.identifier[0]] };
    const theirs = await fhirCall(r, 'POST', '/Patient', {
      principal: lain,
      body: copy,
      headers: { 'if-none-exist': `identifier=${NIK}|${nik}` },
    });
    assert.equal(theirs.status, 201);
    assert.notEqual(theirs.body.id, id);
    const demoRow = await r.owner.query("select version, status from records.pasien where id = $1 and tenant_id = 'rs-demo'", [id]);
    assert.deepEqual(demoRow.rows[0], { version: 1, status: 'active' }, "rs-demo's patient is untouched");
  });

  test('SMART scopes narrow what a token may do; the role still decides; refusals are OperationOutcomes', async () => {
    const as = (scopes: string[], role = 'registration_clerk', extra = {}) => r.principal('rs-demo', role, { scopes, ...extra });
    const id = made[5]!.id as string;
    const readSearch = await as(['user/Patient.rs']);
    assert.equal((await fhirCall(r, 'GET', `/Patient/${id}`, { principal: readSearch })).status, 200);
    assert.equal((await fhirCall(r, 'GET', '/Patient?name=zul', { principal: readSearch })).status, 200);
    assert.match(
      assertOutcome(await fhirCall(r, 'POST', '/Patient', { principal: readSearch, body: patientFor(900) }), 403, 'forbidden'),
      /simrs:write/,
    );
    assert.equal(dataOf(await r.query('pasien.list', { limit: 1 }, readSearch)) !== undefined, true, 'user/ scopes hold on tRPC too');
    const createOnly = await as(['user/Patient.c']);
    assert.equal((await fhirCall(r, 'POST', '/Patient', { principal: createOnly, body: patientFor(901) })).status, 201);
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}`, { principal: createOnly }), 403, 'forbidden');
    assertOutcome(
      await fhirCall(r, 'POST', '/Patient', { principal: createOnly, body: patientFor(902), headers: { 'if-none-exist': 'name=x' } }),
      403,
      'forbidden',
    );
    assertOutcome(await fhirCall(r, 'DELETE', `/Patient/${id}`, { principal: await as(['user/Patient.cruds']) }), 403, 'forbidden'); // a clerk may not archive
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${id}`, { principal: await as(['patient/Patient.rs']) }), 403, 'forbidden');
    const launched = await as(['patient/Patient.rs'], 'doctor', { patientId: id });
    assert.equal((await fhirCall(r, 'GET', `/Patient/${id}`, { principal: launched })).status, 200);
    assertOutcome(await fhirCall(r, 'GET', `/Patient/${made[6]!.id as string}`, { principal: launched }), 404, 'not-found');
    assert.deepEqual(ids((await fhirCall(r, 'GET', '/Patient?name=zul', { principal: launched })).body), [id]);
    assert.equal((await r.query('pasien.list', {}, launched)).status, 403, 'tRPC lists every patient: a patient/ scope is not enough');
    assertOutcome(await fhirCall(r, 'GET', '/Patient', { principal: await r.principal('rs-demo', 'auditor') }), 403, 'forbidden');
  });

  test('every FHIR read, search and write leaves its audit row; refusals leave none', async () => {
    const before = await countRows(r.owner, 'records.audit_log', "tenant_id = 'rs-demo' and details->>'via' = 'fhir'");
    const created = await fhirCall(r, 'POST', '/Patient', { principal: admin, body: patientFor(950) });
    const id = created.body.id as string;
    await fhirCall(r, 'GET', `/Patient/${id}`, { principal: admin });
    await fhirCall(r, 'GET', `/Patient/${id}/_history/1`, { principal: admin });
    await fhirCall(r, 'GET', `/Patient/${id}/_history`, { principal: admin });
    await fhirCall(r, 'GET', `/Patient?_id=${id}`, { principal: admin });
    await fhirCall(r, 'PUT', `/Patient/${id}`, { principal: admin, body: created.body });
    await fhirCall(r, 'DELETE', `/Patient/${id}`, { principal: admin });
    await fhirCall(r, 'GET', `/Patient/${id}`, { principal: lain });
    await fhirCall(r, 'POST', '/Patient', { principal: await r.principal('rs-demo', 'nurse'), body: patientFor(951) });
    const { rows } = await r.owner.query(
      "select action, details->>'interaction' as interaction, pasien_ids::text[] as ids from records.audit_log where tenant_id = 'rs-demo' and details->>'via' = 'fhir' order by id desc limit 7",
    );
    assert.deepEqual(
      rows.reverse().map((x) => [x.action, x.interaction]),
      [
        ['pasien.create', 'create'],
        ['pasien.get', 'read'],
        ['pasien.get', 'vread'],
        ['pasien.get', 'history'],
        ['pasien.list', 'search'],
        ['pasien.update', 'update'],
        ['pasien.archive', 'delete'],
      ],
    );
    for (const row of rows) assert.deepEqual(row.ids, [id]);
    assert.equal(await countRows(r.owner, 'records.audit_log', "tenant_id = 'rs-demo' and details->>'via' = 'fhir'"), before + 7);
    assert.equal(await countRows(r.owner, 'records.audit_log', "tenant_id = 'rs-lain' and pasien_ids @> array[$1::uuid]", [id]), 0);
  });
});
