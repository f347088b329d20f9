import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ageInYears, flagOf, flagsByAge, prepareVitals, rangesOver, referenceRange, vitalByKey } from './vital.ts';

const sign = (key: string) => vitalByKey(key)!;

test("a child's signs are judged by the ranges of its age, an adult's (or an unknown age's) by the adult ones", () => {
  const cases: [key: string, value: number, age: number | undefined, flag: string][] = [
    ['nadi', 110, 4, 'N'], // a preschooler's normal pulse is an adult's high one
    ['nadi', 110, 30, 'H'],
    ['nadi', 110, undefined, 'H'],
    ['nadi', 150, 0.5, 'N'],
    ['nadi', 200, 8, 'HH'], // above what suggests supraventricular tachycardia in a child
    ['nadi', 55, 8, 'LL'], // bradycardia that needs action
    ['napas', 26, 4, 'N'],
    ['napas', 26, 40, 'H'],
    ['napas', 45, 0.3, 'N'],
    ['sistolik', 70, 10 / 365.25, 'N'], // a ten-day-old
    ['sistolik', 65, 2, 'LL'], // hypotension at two: below 70 + 2 × age
    ['sistolik', 100, 2, 'N'],
    ['sistolik', 100, 14, 'L'],
    ['diastolik', 45, 1.5, 'N'],
    ['diastolik', 45, 40, 'L'],
    ['nadi', 95, 16, 'N'], // from sixteen on, the adult ranges
    ['suhu', 38.5, 3, 'H'], // fever is fever at any age
  ];
  for (const [key, value, age, flag] of cases) assert.equal(flagOf(sign(key), value, age), flag, `${key} ${value} at ${age}`);
  assert.equal(referenceRange(sign('beratBadan'), 3), undefined, 'weight is never flagged');
});

test('age in years counts a newborn in days, and a birthday to the day', () => {
  assert.equal(ageInYears('2020-01-01', '2026-01-01T00:00:00Z').toFixed(2), '6.00');
  assert.ok(ageInYears('2026-11-20', '2026-11-29T08:00:00Z') < 28 / 365.25);
  assert.equal(ageInYears('2030-01-01', '2026-01-01T00:00:00Z'), 0, 'never negative');
});

test("a blood pressure panel is flagged by its worse component at the patient's age", () => {
  const measurements = [
    { key: 'sistolik', value: 95, unit: 'mm[Hg]' },
    { key: 'diastolik', value: 55, unit: 'mm[Hg]' },
    { key: 'nadi', value: 120, unit: '/min' },
  ];
  const flags = (age: number | undefined) => {
    const prepared = prepareVitals(measurements, age);
    assert.ok(Array.isArray(prepared));
    return prepared.map((p) => p.flag);
  };
  assert.deepEqual(flags(4), ['N', 'N']);
  assert.deepEqual(flags(40), ['L', 'H']);
});

test("an entry carries its flag by age, for the write to pick the patient's band; none where age changes nothing", () => {
  const pulse = flagsByAge((age) => flagOf(sign('nadi'), 110, age));
  const at = (age: number) => pulse.find(([below]) => age < below)?.[1] ?? flagOf(sign('nadi'), 110);
  for (const age of [0, 0.5, 2, 4, 8, 12, 15, 16, 40]) assert.equal(at(age), flagOf(sign('nadi'), 110, age), `at ${age}`);
  assert.deepEqual(
    flagsByAge((age) => flagOf(sign('suhu'), 36.8, age)),
    [],
  );
  const prepared = prepareVitals([{ key: 'nadi', value: 110, unit: '/min' }], undefined);
  assert.ok(Array.isArray(prepared));
  assert.equal(prepared[0]!.flag, 'H', "an unknown age: an adult's flag");
  assert.deepEqual(prepared[0]!.byAge, pulse);
});

test("the ranges a chart draws follow the patient's age: a child's change at its birthdays, an adult's or an unknown age's stay", () => {
  const at = (date: string) => Date.parse(`${date}T00:00:00Z`);
  const spans = rangesOver(sign('nadi'), '2020-03-01', at('2022-06-01'), at('2026-06-01'));
  assert.deepEqual(
    spans.map((s) => [new Date(s.from).toISOString().slice(0, 10), s.range.normal]),
    [
      ['2022-06-01', [98, 140]], // a toddler
      ['2023-03-01', [80, 120]], // from three, a preschooler
      ['2026-03-01', [75, 118]], // from six, school age
    ],
  );
  assert.equal(spans.at(-1)!.to, at('2026-06-01'));
  assert.deepEqual(
    rangesOver(sign('nadi'), '1980-01-01', at('2022-06-01'), at('2026-06-01')).map((s) => s.range.normal),
    [referenceRange(sign('nadi'), undefined)!.normal],
  );
  assert.equal(rangesOver(sign('nadi'), undefined, at('2024-01-01'), at('2024-01-01')).length, 1, 'one time: one span');
  assert.deepEqual(rangesOver(sign('beratBadan'), '2020-03-01', at('2022-06-01'), at('2026-06-01')), []);
});
