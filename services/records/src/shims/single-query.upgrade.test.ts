// Fails when a tRPC upgrade moves what shims/single-query.ts reads below tRPC's public API: the
// router's `_def._config` (error formatter, transformer) and `_def.procedures` (each with its type).
// server/single-query.test.ts then checks that the answers are still the adapter's, byte for byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initTRPC } from '@trpc/server';
import type { RouterInternals } from './single-query.ts';

test("tRPC's router still carries its config and typed procedures where the single-query path reads them", () => {
  const errorFormatter = ({ shape }: { shape: object }) => ({ ...shape, mine: true });
  const t = initTRPC.create({ errorFormatter });
  const router = t.router({
    q: t.procedure.query(() => 1),
    m: t.procedure.mutation(() => 2),
    nested: t.router({ q: t.procedure.query(() => 3) }),
  });
  const { _config: config, procedures } = (router as unknown as RouterInternals)._def;
  assert.equal(typeof config, 'object');
  assert.equal(config.errorFormatter, errorFormatter);
  assert.equal(typeof config.transformer.output.serialize, 'function');
  assert.deepEqual(Object.keys(procedures).sort(), ['m', 'nested.q', 'q']);
  assert.equal(procedures.q!._def.type, 'query');
  assert.equal(procedures.m!._def.type, 'mutation');
  assert.equal(procedures['nested.q']!._def.type, 'query');
});
