import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isApiScope,
  isSystemScope,
  parseSmartScope,
  scopeGrant,
  scopeReach,
  seedScopesOf,
  SMART_RESOURCES,
  SMART_SCOPES,
  SYSTEM_SCOPES,
} from './smart.ts';

const VITALS = 'http://terminology.hl7.org/CodeSystem/observation-category|vital-signs';
const DIAGNOSES = 'http://terminology.hl7.org/CodeSystem/condition-category|encounter-diagnosis';

test('SMART v2 scopes parse into actions; v1 forms map onto v2; anything else is not a SMART scope', () => {
  assert.deepEqual(parseSmartScope('patient/Patient.rs'), { context: 'patient', resource: 'Patient', actions: ['read', 'search'] });
  assert.deepEqual(parseSmartScope('user/Patient.cruds')?.actions, ['create', 'read', 'update', 'delete', 'search']);
  assert.deepEqual(parseSmartScope('user/*.read')?.actions, ['read', 'search']);
  assert.deepEqual(parseSmartScope('user/Patient.write')?.actions, ['create', 'update', 'delete']);
  assert.deepEqual(parseSmartScope('user/Patient.*')?.actions, ['create', 'read', 'update', 'delete', 'search']);
  for (const bad of [
    'user/Patient.',
    'user/Patient.sr',
    'user/Patient.rr',
    'system/Patient.cruds',
    'system/Patient.write',
    'user/Observation.rx',
    'user/MedicationRequest.rs',
    'user/encounter.rs',
    'user/Patient.rs?x=1',
    'simrs:read',
    'patient/patient.r',
  ]) {
    assert.equal(parseSmartScope(bad), undefined, bad);
  }
});

test('reach: seed scopes cover everything of their kind, user/ scopes every patient, patient/ scopes the launch patient', () => {
  assert.equal(scopeReach(['simrs:read'], 'search'), 'all');
  assert.equal(scopeReach(['simrs:read'], 'read'), 'all');
  assert.equal(scopeReach(['simrs:read'], 'create'), undefined);
  assert.equal(scopeReach(['simrs:write'], 'delete'), 'all');
  assert.equal(scopeReach(['simrs:read'], 'audit.read'), 'all');
  assert.equal(scopeReach(['user/Patient.cruds'], 'audit.read'), undefined, 'no SMART scope reaches the audit trail');
  assert.equal(scopeReach(['user/Patient.r'], 'read'), 'all');
  assert.equal(scopeReach(['user/Patient.r'], 'search'), undefined);
  assert.equal(scopeReach(['patient/Patient.rs'], 'search'), 'patient');
  assert.equal(scopeReach(['patient/Patient.rs', 'user/Patient.s'], 'search'), 'all');
  assert.equal(scopeReach(['openid', 'profile'], 'read'), undefined);
});

test('Encounter scopes reach visits only; Patient scopes patients only; * both', () => {
  assert.deepEqual(parseSmartScope('patient/Encounter.rs'), { context: 'patient', resource: 'Encounter', actions: ['read', 'search'] });
  assert.equal(scopeReach(['user/Encounter.cruds'], 'read', 'Encounter'), 'all');
  assert.equal(scopeReach(['user/Encounter.cruds'], 'read'), undefined, 'an Encounter scope reads no patient');
  assert.equal(scopeReach(['user/Patient.rs'], 'read', 'Encounter'), undefined);
  assert.equal(scopeReach(['patient/Encounter.rs'], 'search', 'Encounter'), 'patient');
  assert.equal(scopeReach(['user/*.rs'], 'search', 'Encounter'), 'all');
  assert.equal(scopeReach(['simrs:read'], 'search', 'Encounter'), 'all');
});

test('the accepted list is every canonical scope, once', () => {
  assert.equal(new Set(SMART_SCOPES).size, SMART_SCOPES.length);
  // contexts x (resources and *) x (31 subsets of cruds + 3 v1 forms), then contexts x (one Observation
  // and one Condition category) x (rs, r, s, read).
  assert.equal(SMART_RESOURCES.length, 6);
  assert.equal(SMART_SCOPES.length, 2 * (6 + 1) * (31 + 3) + 2 * (1 + 1) * 4);
  for (const s of SMART_SCOPES) assert.ok(parseSmartScope(s) && isApiScope(s), s);
  assert.ok(SMART_SCOPES.includes('patient/Patient.rs') && SMART_SCOPES.includes('user/Patient.cruds'));
  assert.ok(SMART_SCOPES.includes('patient/Encounter.rs') && SMART_SCOPES.includes('user/Encounter.cruds'));
  assert.ok(isApiScope('simrs:write') && !isApiScope('openid'));
  for (const r of ['Observation', 'Condition', 'AllergyIntolerance', 'DocumentReference'])
    assert.ok(SMART_SCOPES.includes(`patient/${r}.rs`) && SMART_SCOPES.includes(`user/${r}.cruds`), r);
  for (const p of ['rs', 'r', 's', 'read']) {
    assert.ok(SMART_SCOPES.includes(`patient/Observation.${p}?category=${VITALS}`), p);
    assert.ok(SMART_SCOPES.includes(`user/Condition.${p}?category=${DIAGNOSES}`), p);
  }
  assert.ok(!SMART_SCOPES.includes('patient/Observation.rs?category=vital-signs'), 'only the canonical system|code form is offered');
  assert.ok(!SMART_SCOPES.some((s) => s.includes('?') && !/\.(rs|r|s|read)\?/.test(s)), 'no category-filtered write scope');
});

test('a SMART scope stands under the seed scopes of its actions', () => {
  assert.deepEqual(seedScopesOf('user/Patient.rs'), ['simrs:read']);
  assert.deepEqual(seedScopesOf('patient/*.read'), ['simrs:read']);
  assert.deepEqual(seedScopesOf('user/Patient.cruds'), ['simrs:write', 'simrs:read']);
  assert.deepEqual(seedScopesOf('user/Patient.d'), ['simrs:write']);
  assert.deepEqual(seedScopesOf('openid'), ['openid']);
});

test('clinical resource types: each scope reaches its own type only; * reaches them all', () => {
  for (const resource of ['Observation', 'Condition', 'AllergyIntolerance', 'DocumentReference'] as const) {
    assert.deepEqual(parseSmartScope(`patient/${resource}.rs`), { context: 'patient', resource, actions: ['read', 'search'] });
    assert.equal(scopeReach([`user/${resource}.r`], 'read', resource), 'all');
    assert.equal(scopeReach([`user/${resource}.r`], 'read'), undefined, `${resource} reads no patient`);
    assert.equal(scopeReach(['user/Patient.cruds'], 'read', resource), undefined, `a Patient scope reads no ${resource}`);
    assert.equal(scopeReach(['patient/*.rs'], 'search', resource), 'patient');
    assert.deepEqual(scopeGrant(['simrs:read'], 'search', resource), { reach: 'all' });
    assert.deepEqual(scopeGrant(['simrs:write'], 'create', resource), { reach: 'all' });
  }
});

test('a category query narrows Observation and Condition, normalised to system|code; any other query is not an API scope', () => {
  assert.deepEqual(parseSmartScope(`patient/Observation.rs?category=${VITALS}`), {
    context: 'patient',
    resource: 'Observation',
    actions: ['read', 'search'],
    category: VITALS,
  });
  assert.equal(
    parseSmartScope('user/Observation.r?category=vital-signs')?.category,
    VITALS,
    'the bare code stands for the system|code form',
  );
  assert.equal(parseSmartScope('user/Observation.read?category=vital-signs')?.category, VITALS);
  assert.equal(parseSmartScope(`user/Condition.s?category=${DIAGNOSES}`)?.category, DIAGNOSES);
  assert.equal(parseSmartScope('patient/Condition.rs?category=encounter-diagnosis')?.category, DIAGNOSES);
  for (const bad of [
    `patient/Observation.rs?code=${VITALS}`,
    `patient/Observation.rs?category=${VITALS}&code=8867-4`,
    `patient/Observation.rs?category=${VITALS}&category=laboratory`,
    'patient/Observation.rs?category=vital-signs,laboratory',
    'patient/Observation.rs?category=laboratory',
    'patient/Observation.rs?category=http://example.org/other|vital-signs',
    `patient/Observation.rs?category=${DIAGNOSES}`,
    `patient/Condition.rs?category=${VITALS}`,
    'patient/Observation.rs?category=',
    'patient/Observation.rs?',
    `patient/Observation.cruds?category=${VITALS}`,
    `user/Observation.c?category=${VITALS}`,
    `user/Observation.write?category=${VITALS}`,
    `patient/*.rs?category=${VITALS}`,
    'patient/Patient.rs?category=vital-signs',
    'patient/AllergyIntolerance.rs?category=food',
    `system/Observation.rs?category=${VITALS}`,
  ]) {
    assert.equal(parseSmartScope(bad), undefined, bad);
    assert.equal(isApiScope(bad), false, bad);
  }
  assert.deepEqual(seedScopesOf(`patient/Observation.rs?category=${VITALS}`), ['simrs:read']);
});

test('grant: unfiltered scopes reach every category; filtered ones the union of their codes, at the widest reach', () => {
  const vitals = `patient/Observation.rs?category=${VITALS}`;
  assert.deepEqual(scopeGrant([vitals], 'search', 'Observation'), { reach: 'patient', categories: ['vital-signs'] });
  assert.deepEqual(scopeGrant([vitals], 'read', 'Observation'), { reach: 'patient', categories: ['vital-signs'] });
  assert.equal(scopeGrant([vitals], 'create', 'Observation'), undefined);
  assert.equal(scopeGrant([vitals], 'read', 'Condition'), undefined);
  assert.equal(scopeGrant([vitals], 'read'), undefined);
  assert.deepEqual(scopeGrant(['user/Observation.r?category=vital-signs'], 'read', 'Observation'), {
    reach: 'all',
    categories: ['vital-signs'],
  });
  assert.deepEqual(scopeGrant([vitals, 'patient/Observation.rs'], 'read', 'Observation'), { reach: 'patient' }, 'unfiltered wins');
  assert.deepEqual(scopeGrant(['patient/Observation.rs', vitals], 'read', 'Observation'), { reach: 'patient' }, 'in any order');
  assert.deepEqual(scopeGrant([vitals, 'patient/*.read'], 'search', 'Observation'), { reach: 'patient' });
  assert.deepEqual(scopeGrant([vitals, 'simrs:read'], 'search', 'Observation'), { reach: 'all' }, 'seed scopes are unrestricted');
  assert.deepEqual(scopeGrant([vitals, 'user/Observation.s?category=vital-signs'], 'search', 'Observation'), {
    reach: 'all',
    categories: ['vital-signs'],
  });
  // The widest reach wins, with its own categories: never more than the scopes allow.
  assert.deepEqual(scopeGrant(['patient/Observation.rs', `user/Observation.rs?category=${VITALS}`], 'read', 'Observation'), {
    reach: 'all',
    categories: ['vital-signs'],
  });
  assert.deepEqual(scopeGrant([`patient/Condition.rs?category=${DIAGNOSES}`], 'search', 'Condition'), {
    reach: 'patient',
    categories: ['encounter-diagnosis'],
  });
  assert.equal(scopeGrant(['openid'], 'read', 'Observation'), undefined);
  assert.deepEqual(scopeGrant(['simrs:read'], 'audit.read'), { reach: 'all' });
  assert.equal(scopeGrant([`user/Observation.rs?category=${VITALS}`], 'audit.read'), undefined);
});

test('reach counts unfiltered scopes only: a caller that does not filter by category never reaches more than granted', () => {
  const vitals = `user/Observation.rs?category=${VITALS}`;
  assert.equal(scopeReach([vitals], 'read', 'Observation'), undefined);
  assert.equal(scopeReach([vitals, 'patient/Observation.rs'], 'read', 'Observation'), 'patient');
  assert.equal(scopeReach([vitals, 'simrs:read'], 'search', 'Observation'), 'all');
});

test('system/ scopes (backend services) read and search every patient of the hospital, and nothing else', () => {
  assert.deepEqual(parseSmartScope('system/Observation.rs'), { context: 'system', resource: 'Observation', actions: ['read', 'search'] });
  assert.deepEqual(scopeGrant(['system/Observation.rs'], 'search', 'Observation'), { reach: 'all' });
  assert.equal(scopeGrant(['system/Observation.rs'], 'search', 'Condition'), undefined);
  assert.equal(scopeGrant(['system/*.rs'], 'create', 'Patient'), undefined);
  assert.ok(SYSTEM_SCOPES.includes('system/*.read') && SYSTEM_SCOPES.every(isSystemScope));
  assert.ok(!SYSTEM_SCOPES.some((s) => SMART_SCOPES.includes(s)), 'user-facing clients are never offered system scopes');
  assert.equal(isSystemScope('user/Patient.rs'), false);
});
