// Fails when a tRPC upgrade moves what trpc-router.ts reads below tRPC's public API: the router's
// `_def._config` (error formatter, transformer) and `_def.procedures` (each with its type).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initTRPC } from '@trpc/server';
import { procedureTypes, routerConfig } from './trpc-router.ts';

test("tRPC's router still carries its config and typed procedures where trpc-router.ts reads them", () => {
  const errorFormatter = ({ shape }: { shape: object }) => ({ ...shape, mine: true });
  const t = initTRPC.create({ errorFormatter });
  const router = t.router({
    q: t.procedure.query(() => 1),
    m: t.procedure.mutation(() => 2),
    nested: t.router({ q: t.procedure.query(() => 3) }),
  });
  const config = routerConfig(router);
  assert.equal(config.errorFormatter, errorFormatter);
  assert.equal(typeof config.transformer.output.serialize, 'function');
  assert.deepEqual([...procedureTypes(router)].sort(), [
    ['m', 'mutation'],
    ['nested.q', 'query'],
    ['q', 'query'],
  ]);
});
