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
