// The clinical scope grant: which SMART scopes reach which clinical type, how far, and in which categories.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { categoryAllowed, clinicalScopeGrant } from './context.ts';

const VS = 'http://terminology.hl7.org/CodeSystem/observation-category|vital-signs';

test('type, context and permissions: the widest grant wins', () => {
  assert.deepEqual(clinicalScopeGrant(['simrs:read'], 'read', 'Observation'), { reach: 'all' });
  assert.equal(clinicalScopeGrant(['simrs:read'], 'create', 'Observation'), undefined);
  assert.deepEqual(clinicalScopeGrant(['simrs:write'], 'update', 'Condition'), { reach: 'all' });
  assert.deepEqual(clinicalScopeGrant(['user/Observation.rs'], 'search', 'Observation'), { reach: 'all' });
  assert.equal(clinicalScopeGrant(['user/Observation.rs'], 'create', 'Observation'), undefined);
  assert.equal(clinicalScopeGrant(['user/Observation.rs'], 'read', 'Condition'), undefined);
  assert.deepEqual(clinicalScopeGrant(['patient/*.read'], 'read', 'AllergyIntolerance'), { reach: 'patient' });
  assert.deepEqual(clinicalScopeGrant(['patient/Condition.r', 'user/Condition.rs'], 'read', 'Condition'), { reach: 'all' });
  assert.equal(clinicalScopeGrant(['user/Patient.cruds', 'user/Encounter.rs', 'system/Observation.rs'], 'read', 'Observation'), undefined);
  assert.equal(clinicalScopeGrant(['user/Observation.sr'], 'read', 'Observation'), undefined, 'permissions in cruds order only');
});

test('category queries narrow a grant, unless another scope grants every category', () => {
  assert.deepEqual(clinicalScopeGrant([`patient/Observation.rs?category=${VS}`], 'search', 'Observation'), {
    reach: 'patient',
    categories: [VS],
  });
  assert.deepEqual(
    clinicalScopeGrant(
      ['user/AllergyIntolerance.rs?category=food', 'user/AllergyIntolerance.rs?category=medication'],
      'read',
      'AllergyIntolerance',
    ),
    {
      reach: 'all',
      categories: ['food', 'medication'],
    },
  );
  assert.deepEqual(clinicalScopeGrant([`user/Observation.rs?category=${VS}`, 'patient/Observation.rs'], 'read', 'Observation'), {
    reach: 'all',
  });
  assert.equal(clinicalScopeGrant(['user/Observation.rs?code=8867-4'], 'read', 'Observation'), undefined, 'other queries grant nothing');
});

test('a category matches by code, and by system when the scope names one', () => {
  assert.ok(categoryAllowed(undefined, undefined, 'food'));
  assert.ok(categoryAllowed([VS], 'http://terminology.hl7.org/CodeSystem/observation-category', 'vital-signs'));
  assert.ok(
    !categoryAllowed(['http://example.org|vital-signs'], 'http://terminology.hl7.org/CodeSystem/observation-category', 'vital-signs'),
  );
  assert.ok(categoryAllowed(['vital-signs'], 'http://terminology.hl7.org/CodeSystem/observation-category', 'vital-signs'));
  assert.ok(!categoryAllowed(['food'], undefined, 'medication'));
});
