// The checker behind shape.test.ts's "public API" rule, on deliberate samples: an internal import
// outside a shims folder is reported (so shape.test.ts fails on it), the same text inside one is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reachesIn, reachesOutsideShims } from './support/library-reaches.ts';

const WORKSPACES = ['services/records', 'gateway'];
const SAMPLE = [
  "import { prepareValue } from 'pg/lib/utils.js';",
  "import { getErrorShape } from '@trpc/server/unstable-core-do-not-import';",
  "const utils = createRequire(import.meta.url)('pg/lib/utils.js');",
  "const base = await import('better-auth/dist/auth/base.mjs');",
  'const procedures = appRouter._def.procedures;',
  'ctx.internalAdapter.reserveVerificationValue = async () => true;',
].join('\n');

test('an internal import outside shims/ is reported, one per reach, with its line', () => {
  const reaches = reachesOutsideShims([{ path: 'services/records/src/db/sample.ts', text: SAMPLE }], WORKSPACES);
  assert.deepEqual(
    reaches.map((r) => r.line),
    [1, 2, 3, 4, 5, 6],
  );
  assert.match(reaches[0]!.what, /pg\/lib\/utils\.js/);
});

test('the same text inside the package shims folder is allowed', () => {
  assert.deepEqual(reachesOutsideShims([{ path: 'services/records/src/shims/sample.ts', text: SAMPLE }], WORKSPACES), []);
  // ...but not another package's shims folder.
  assert.equal(reachesOutsideShims([{ path: 'gateway/src/db/shims/sample.ts', text: SAMPLE }], WORKSPACES).length, 6);
});

test('front doors are not reaches', () => {
  const text = [
    "import pg from 'pg';",
    "import { router } from 'better-auth/api';",
    "import { startRedisServer } from '../scripts/lib/redis.ts';",
    "import { fetchRequestHandler } from '@trpc/server/adapters/fetch';",
    "import { x } from 'node:module';",
    'if (ctx.internalAdapter.x === y) out._input = 1;',
  ].join('\n');
  assert.deepEqual(reachesIn('gateway/src/x.ts', text), []);
});
