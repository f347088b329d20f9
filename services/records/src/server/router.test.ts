import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROCEDURES } from '../access/index.ts';
import { procedureTypes } from '../shims/index.ts';
import { appRouter } from './router.ts';

test('every procedure of the router but healthCheck is in the matrix, with its real kind', () => {
  const procedures = procedureTypes(appRouter);
  const names = [...procedures.keys()].filter((n) => n !== 'healthCheck').sort();
  assert.deepEqual(names, Object.keys(PROCEDURES).sort());
  for (const [name, spec] of Object.entries(PROCEDURES)) assert.equal(procedures.get(name), spec.kind, name);
});

test('a need-to-know procedure cannot be built without its relationship check', async () => {
  const { guardedProcedure } = await import('./trpc.ts');
  assert.throws(() => guardedProcedure('klinis.riwayat'), /reaches clinical content: build it with clinicalProcedure/);
  assert.doesNotThrow(() => guardedProcedure('kunjungan.list'));
});
