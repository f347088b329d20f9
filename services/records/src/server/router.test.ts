import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROCEDURES } from '../access/index.ts';
import { procedureTypes } from '../shims/index.ts';
import { appRouter } from './router.ts';

const procedures = procedureTypes(appRouter);

test("the router serves exactly the matrix's procedures (and healthCheck), each with its real kind", () => {
  const names = [...procedures.keys()].filter((n) => n !== 'healthCheck').sort();
  assert.deepEqual(names, Object.keys(PROCEDURES).sort());
  for (const [name, type] of procedures)
    if (name !== 'healthCheck') assert.equal(type, PROCEDURES[name as keyof typeof PROCEDURES]?.kind, `${name} in the matrix as a ${type}`);
});

test('a need-to-know procedure cannot be built without its relationship check', async () => {
  const { guardedProcedure } = await import('./trpc.ts');
  assert.throws(() => guardedProcedure('klinis.riwayat'), /reaches clinical content: build it with clinicalProcedure/);
  assert.doesNotThrow(() => guardedProcedure('kunjungan.list'));
});
