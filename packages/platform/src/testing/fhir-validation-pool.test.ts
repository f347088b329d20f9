import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fhirValidationPool } from './fhir-validation-pool.ts';

const patient = (i: number) => JSON.stringify({ resourceType: 'Patient', id: `p${i}`, gender: 'female', birthDate: '1990-01-02' });

test('the pool accepts valid lines across batches and workers', async () => {
  const pool = fhirValidationPool(2);
  for (let i = 0; i < 1_200; i++) await pool.add(patient(i), `Patient line ${i}`);
  await pool.finish();
});

test('the pool reports an invalid line with its label and the validator’s issue', async () => {
  const pool = fhirValidationPool(2);
  for (let i = 0; i < 700; i++) await pool.add(patient(i), `Patient line ${i}`);
  await pool.add(JSON.stringify({ resourceType: 'Patient', id: 'bad', birthDate: 'yesterday' }), 'Patient line bad');
  for (let i = 700; i < 900; i++) await pool.add(patient(i), `Patient line ${i}`);
  await assert.rejects(pool.finish(), /Patient line bad is not valid FHIR R4: .*birthDate/);
});

const VITAL_SIGNS = 'http://hl7.org/fhir/StructureDefinition/vitalsigns';
const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
/** Heart rates that differ only in ids, values and times: one structure, so the profile is checked once. */
const heartRate = (i: number, change: Record<string, unknown> = {}) =>
  JSON.stringify({
    resourceType: 'Observation',
    id: uuid(i),
    meta: { profile: [VITAL_SIGNS] },
    status: 'final',
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs' }] }],
    code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] },
    subject: { reference: `Patient/${uuid(100_000 + i)}` },
    effectiveDateTime: `2026-01-${String(1 + (i % 28)).padStart(2, '0')}T03:04:05Z`,
    valueQuantity: { value: 60 + (i % 40), unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' },
    ...change,
  });

test('a declared profile is checked for each new structure: lines that differ only in ids, values and times pass', async () => {
  const pool = fhirValidationPool(2);
  for (let i = 0; i < 1_100; i++) await pool.add(heartRate(i), `Observation line ${i}`);
  await pool.finish();
});

test('a line of a seen structure but for what the profile checks fails: a category R4 allows, a time less precise than a day', async () => {
  for (const [label, change] of [
    ['uncategorised', { category: [{ coding: [{ system: 'http://loinc.org', code: 'x' }] }] }],
    ['by the month', { effectiveDateTime: '2026-01' }],
  ] as const) {
    const pool = fhirValidationPool(2);
    for (let i = 0; i < 600; i++) await pool.add(heartRate(i), `Observation line ${i}`);
    await pool.add(heartRate(9_999, change), `Observation line ${label}`);
    await assert.rejects(pool.finish(), new RegExp(`Observation line ${label} is not valid FHIR R4`));
  }
});
