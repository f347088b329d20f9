// Fails when a Better Auth upgrade changes what router-once.ts stands in for or builds on: Better
// Auth's own handler builds its endpoint table again for every request (when it stops, the shim can
// go: better-auth/better-auth#10188), and `router(context, options)` from better-auth/api still
// gives a handler. router-once.test.ts checks the answers against Better Auth's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { betterAuth } from 'better-auth';
import type { BetterAuthPlugin } from 'better-auth';
import { createAuthEndpoint, router } from 'better-auth/api';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { TEST_SECRET } from '../testing/index.ts';
import { routerOnce } from './router-once.ts';

const BASE = 'http://identity.test';

test('Better Auth builds its endpoints per request; the router built once does not', async () => {
  let built = 0;
  const counting = {
    id: 'counting',
    // Read by Better Auth each time it builds its endpoint table.
    get endpoints() {
      built++;
      return { ping: createAuthEndpoint('/ping', { method: 'GET' }, async (ctx) => ctx.json({ ok: true })) };
    },
  } as BetterAuthPlugin;
  const options = {
    baseURL: BASE,
    secret: TEST_SECRET,
    database: memoryAdapter({}),
    telemetry: { enabled: false },
    logger: { disabled: true },
    plugins: [counting],
  };
  const auth = betterAuth(options);
  const ping = () => new Request(`${BASE}/api/auth/ping`);
  await auth.handler(ping());
  const before = built;
  await auth.handler(ping());
  await auth.handler(ping());
  assert.ok(built >= before + 2, 'auth.handler builds its endpoints again for every request');
  const once = routerOnce(auth);
  assert.equal((await once(ping())).status, 200);
  const warm = built;
  await once(ping());
  await once(ping());
  assert.equal(built, warm, 'the router built once is not built again');
  assert.equal(typeof router((await auth.$context) as Parameters<typeof router>[0], options).handler, 'function');
});
