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
const heartRate = (i: number, change: Record<string, unknown> = {}) =>
  JSON.stringify({
    resourceType: 'Observation',
    id: `o${i}`,
    meta: { profile: [VITAL_SIGNS] },
    status: 'final',
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs' }] }],
    code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] },
    subject: { reference: `Patient/p${i}` },
    effectiveDateTime: '2026-01-02T03:04:05Z',
    valueQuantity: { value: 60 + (i % 40), unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' },
    ...change,
  });

test('a declared profile is checked for each new structure: lines that differ only in values pass, one without its category fails', async () => {
  const pool = fhirValidationPool(2);
  for (let i = 0; i < 1_100; i++) await pool.add(heartRate(i), `Observation line ${i}`);
  await pool.add(
    heartRate(9_999, { category: [{ coding: [{ system: 'http://loinc.org', code: 'x' }] }] }),
    'Observation line uncategorised',
  );
  await assert.rejects(pool.finish(), /Observation line uncategorised is not valid FHIR R4: .*category/);
});
