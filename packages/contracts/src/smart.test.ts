import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiScope, parseSmartScope, scopeReach, seedScopesOf, SMART_SCOPES } from './smart.ts';

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
    'system/Patient.rs',
    'user/Observation.rs',
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
  assert.equal(SMART_SCOPES.length, 2 * 3 * (31 + 3));
  for (const s of SMART_SCOPES) assert.ok(parseSmartScope(s) && isApiScope(s), s);
  assert.ok(SMART_SCOPES.includes('patient/Patient.rs') && SMART_SCOPES.includes('user/Patient.cruds'));
  assert.ok(SMART_SCOPES.includes('patient/Encounter.rs') && SMART_SCOPES.includes('user/Encounter.cruds'));
  assert.ok(isApiScope('simrs:write') && !isApiScope('openid'));
});

test('a SMART scope stands under the seed scopes of its actions', () => {
  assert.deepEqual(seedScopesOf('user/Patient.rs'), ['simrs:read']);
  assert.deepEqual(seedScopesOf('patient/*.read'), ['simrs:read']);
  assert.deepEqual(seedScopesOf('user/Patient.cruds'), ['simrs:write', 'simrs:read']);
  assert.deepEqual(seedScopesOf('user/Patient.d'), ['simrs:write']);
  assert.deepEqual(seedScopesOf('openid'), ['openid']);
});
