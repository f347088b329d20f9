import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROCEDURES } from '../access/index.ts';
import { procedureTypes } from '../shims/index.ts';
import { appRouter } from './router.ts';

const procedures = procedureTypes(appRouter);

test('every procedure of the router but healthCheck is in the matrix, with its real kind', () => {
  for (const [name, type] of procedures)
    if (name !== 'healthCheck') assert.equal(type, PROCEDURES[name as keyof typeof PROCEDURES]?.kind, `${name} in the matrix as a ${type}`);
});

// A permission can be declared before its procedure lands (the matrix is shared with the dashboard):
// each such procedure is a todo here until the router serves it.
for (const name of Object.keys(PROCEDURES).filter((n) => !procedures.has(n)))
  test.todo(`${name}: in the matrix, not served by the router yet`);

test('a need-to-know procedure cannot be built without its relationship check', async () => {
  const { guardedProcedure } = await import('./trpc.ts');
  assert.throws(() => guardedProcedure('klinis.riwayat'), /reaches clinical content: build it with clinicalProcedure/);
  assert.doesNotThrow(() => guardedProcedure('kunjungan.list'));
});
