import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPasienInput } from './schema.ts';
import { syntheticPasien } from './synth.ts';

test('synthetic patients are deterministic, valid and have distinct NIKs', () => {
  assert.deepEqual(syntheticPasien(7, 3), syntheticPasien(7, 3));
  const niks = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const p = syntheticPasien(1, i);
    const parsed = createPasienInput.safeParse(p);
    assert.ok(parsed.success, `patient ${i}: ${JSON.stringify(parsed.error?.issues)} ${JSON.stringify(p)}`);
    niks.add(p.nik);
  }
  assert.equal(niks.size, 2000);
});
