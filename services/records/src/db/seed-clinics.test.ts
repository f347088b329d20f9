import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseClinicians } from './seed-clinics.ts';

test('SEED_CLINICIANS names user ids and their clinic codes; anything else is refused', () => {
  assert.deepEqual(
    [...parseClinicians('dr-1=UMUM, PD; ns_2@x=UMUM')],
    [
      ['dr-1', ['UMUM', 'PD']],
      ['ns_2@x', ['UMUM']],
    ],
  );
  assert.equal(parseClinicians(undefined).size, 0);
  assert.equal(parseClinicians('').size, 0);
  assert.throws(() => parseClinicians('dr-1'), /not <user id>=<clinic code>/);
  assert.throws(() => parseClinicians("dr'1=UMUM"), /SEED_CLINICIANS/);
});
