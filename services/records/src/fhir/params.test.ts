import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BPJS_SYSTEM, mrSystem, NIK_SYSTEM } from './mapping.ts';
import { FhirError } from './outcome.ts';
import { parseSearch } from './params.ts';

const parse = (qs: string, strict = false) => parseSearch(new URLSearchParams(qs), { tenantId: 'rs-demo', strict });
const refusal = (qs: string, strict = false) => {
  try {
    parse(qs, strict);
  } catch (err) {
    assert.ok(err instanceof FhirError);
    return `${err.status} ${err.issues[0]!.code}`;
  }
  throw new Error(`accepted ${qs}`);
};

test('identifier: each system to its field, a bare value to any of them, an unknown system to nothing', () => {
  const q = (v: string) => parse(`identifier=${encodeURIComponent(v)}`).conditions[0];
  assert.deepEqual(q(`${NIK_SYSTEM}|3273011501900003`), { field: 'nik', anyOf: ['3273011501900003'] });
  assert.deepEqual(q(`${mrSystem('rs-demo')}|42`), { field: 'noRm', anyOf: ['42'] });
  assert.deepEqual(q(`${mrSystem('rs-lain')}|42`), { field: 'none' }, "another hospital's numbers are another system");
  assert.deepEqual(q(`${BPJS_SYSTEM}|`), { field: 'hasNoBpjs' });
  assert.deepEqual(q('0001234567890'), { field: 'anyIdentifier', anyOf: ['0001234567890'] });
  assert.deepEqual(q(`${NIK_SYSTEM}|1,${BPJS_SYSTEM}|2`), {
    field: 'or',
    anyOf: [
      { field: 'nik', anyOf: ['1'] },
      { field: 'noBpjs', anyOf: ['2'] },
    ],
  });
});

test('birthdate prefixes and precisions become day ranges', () => {
  const r = (v: string) => (parse(`birthdate=${v}`).conditions[0] as { anyOf: unknown[] }).anyOf[0];
  assert.deepEqual(r('1990'), { from: '1990-01-01', to: '1990-12-31', toInclusive: true });
  assert.deepEqual(r('1990-02'), { from: '1990-02-01', to: '1990-02-28', toInclusive: true });
  assert.deepEqual(r('ge1990-02-03'), { from: '1990-02-03' });
  assert.deepEqual(r('lt1990'), { to: '1990-01-01' });
  assert.deepEqual(r('le1990-02'), { to: '1990-02-28', toInclusive: true });
  assert.deepEqual(r('gt1990-02'), { from: '1990-02-28', fromInclusive: false });
  assert.deepEqual(r('ne1990-02-03'), { from: '1990-02-03', to: '1990-02-03', toInclusive: true, not: true });
  assert.equal(refusal('birthdate=1990-02-30'), '400 invalid');
  assert.equal(refusal('birthdate=yesterday'), '400 invalid');
});

test('_lastUpdated ranges are half-open instants at the precision given', () => {
  const r = (v: string) => (parse(`_lastUpdated=${encodeURIComponent(v)}`).conditions[0] as { anyOf: unknown[] }).anyOf[0];
  assert.deepEqual(r('2025-03-04'), { from: '2025-03-04T00:00:00.000Z', to: '2025-03-05T00:00:00.000Z', toInclusive: false });
  assert.deepEqual(r('gt2025-03-04T10:00:00+07:00'), { from: '2025-03-04T03:00:01.000Z' });
  assert.deepEqual(r('lt2025-03'), { to: '2025-03-01T00:00:00.000Z' });
});

test('names, gender, sorts, counts; unknown parameters ignored unless strict; unknown modifiers refused', () => {
  assert.equal(refusal('given:exact=x'), '400 not-supported');
  const ok = parse('name=siti,budi&family=aminah&gender=female,other&_count=500&_sort=-birthdate&_summary=count&_format=json');
  assert.deepEqual(ok.conditions, [
    { field: 'name', part: 'any', anyOf: ['siti', 'budi'] },
    { field: 'name', part: 'family', anyOf: ['aminah'] },
    { field: 'jenisKelamin', anyOf: ['P'] },
  ]);
  assert.equal(ok.count, 100);
  assert.equal(ok.sort, '-lahir');
  assert.deepEqual(ok.ignored, ['_summary']);
  assert.equal(refusal('_summary=count', true), '400 not-supported');
  assert.equal(refusal('_sort=name'), '400 not-supported');
  assert.equal(refusal('_count=-1'), '400 invalid');
  assert.deepEqual(parse('name:exact=Siti Aminah').conditions, [{ field: 'name', part: 'exact', anyOf: ['Siti Aminah'] }]);
  assert.notEqual(parse('name=siti').digest, parse('name=situ').digest, 'a cursor is bound to its search');
  assert.equal(parse('name=siti&_count=5').digest, parse('name=siti&_count=9').digest, 'but not to the page size');
});
