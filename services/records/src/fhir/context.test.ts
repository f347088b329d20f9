// Which of a kind's categories a scope's grant reaches (scopeGrant of @simrs/contracts/smart gives the
// categories as bare codes; a `system|code` form is read too).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { categoryAllowed } from './context.ts';

const OBS = 'http://terminology.hl7.org/CodeSystem/observation-category';

test('a category matches by code, and by system when the grant names one', () => {
  assert.ok(categoryAllowed(undefined, undefined, 'food'));
  assert.ok(categoryAllowed(['vital-signs'], OBS, 'vital-signs'));
  assert.ok(categoryAllowed([`${OBS}|vital-signs`], OBS, 'vital-signs'));
  assert.ok(!categoryAllowed(['http://example.org|vital-signs'], OBS, 'vital-signs'));
  assert.ok(!categoryAllowed(['laboratory'], OBS, 'vital-signs'));
  assert.ok(!categoryAllowed([], OBS, 'vital-signs'));
});
