// Better Auth's handler with its router built once (router-once.ts): the same answers as Better Auth's own
// handler, and each request still has a context of its own, so what one request writes onto it is not
// seen by another, also when they run at the same time.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { betterAuth } from 'better-auth';
import type { BetterAuthOptions, BetterAuthPlugin } from 'better-auth';
import { createAuthEndpoint } from 'better-auth/api';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { TEST_SECRET } from '../testing/index.ts';
import { isStaticConfiguration, routerOnce } from './router-once.ts';

const BASE = 'http://identity.test';

/** A request writes its own marker onto the context it is given before routing; the endpoint reads it back later. */
const markerPlugin = {
  id: 'marker',
  onRequest: async (request: Request, ctx: object) => {
    const marker = request.headers.get('x-marker');
    if (marker) (ctx as { marker?: string }).marker = marker;
  },
  endpoints: {
    marker: createAuthEndpoint('/marker', { method: 'GET' }, async (ctx) => {
      await sleep(Number(ctx.headers?.get('x-wait') ?? 0));
      return ctx.json({ marker: (ctx.context as { marker?: string }).marker ?? null });
    }),
  },
} satisfies BetterAuthPlugin;

const options = (extra: Partial<BetterAuthOptions> = {}) =>
  ({
    baseURL: BASE,
    basePath: '/api/auth',
    secret: TEST_SECRET,
    database: memoryAdapter({}),
    trustedOrigins: [BASE],
    telemetry: { enabled: false },
    logger: { disabled: true },
    plugins: [markerPlugin],
    ...extra,
  }) satisfies BetterAuthOptions;

const get = (path: string, headers: Record<string, string> = {}) => new Request(`${BASE}/api/auth${path}`, { headers });

describe("Better Auth's handler with the router built once", () => {
  test('answers as Better Auth does: an endpoint, an unknown path, a wrong method', async () => {
    const auth = betterAuth(options());
    const handler = routerOnce(auth);
    assert.ok(isStaticConfiguration(await auth.$context));
    for (const request of [
      () => get('/ok'),
      () => get('/no-such-endpoint'),
      () => new Request(`${BASE}/api/auth/ok`, { method: 'DELETE' }),
      () => new Request(`${BASE}/api/auth/sign-out`, { method: 'POST', headers: { origin: 'http://evil.test', cookie: 'a=b' } }),
    ]) {
      const [ours, theirs] = await Promise.all([handler(request()), auth.handler(request())]);
      assert.equal(ours.status, theirs.status);
      assert.equal(await ours.text(), await theirs.text());
    }
  });

  test('what a request writes onto its context is not seen by another request, also one running at the same time', async () => {
    const handler = routerOnce(betterAuth(options()));
    const [slow, fast] = await Promise.all([
      handler(get('/marker', { 'x-marker': 'first', 'x-wait': '30' })),
      (async () => {
        await sleep(5);
        return handler(get('/marker', { 'x-marker': 'second' }));
      })(),
    ]);
    assert.deepEqual(await slow.json(), { marker: 'first' });
    assert.deepEqual(await fast.json(), { marker: 'second' });
    const after = await handler(get('/marker'));
    assert.deepEqual(await after.json(), { marker: null });
  });

  test("a configuration Better Auth resolves per request (trusted origins from a function) keeps Better Auth's handler", async () => {
    const auth = betterAuth(options({ trustedOrigins: async () => [BASE] }));
    assert.equal(isStaticConfiguration(await auth.$context), false);
    const response = await routerOnce(auth)(get('/marker', { 'x-marker': 'mine' }));
    assert.deepEqual(await response.json(), { marker: 'mine' });
  });
});
