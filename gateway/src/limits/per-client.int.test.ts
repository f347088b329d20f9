// The MCP route's budget per OAuth client against a real redis-server: an agent approved by several
// people is one agent, so its users share one count; another client has its own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import express from 'express';
import request from 'supertest';
import { createRedis } from '@simrs/platform/redis';
import type { Redis } from '@simrs/platform/redis';
import { startRedisServer } from '../../../scripts/lib/redis.ts';
import type { RedisServer } from '../../../scripts/lib/redis.ts';
import { requestContext } from '@simrs/platform/context';
import type { setCaller as SetCaller } from '../server/index.ts';
import { CallerRateLimit, limitKeySecret } from './limiter.ts';
import type { rateLimitPerClient as RateLimitPerClient } from './rate-limit.ts';

let server: RedisServer;
let redis: Redis;
let setCaller: typeof SetCaller;
let rateLimitPerClient: typeof RateLimitPerClient;

before(async () => {
  server = await startRedisServer();
  redis = createRedis(server.url, 'per-client');
  await redis.ping();
  // The middleware answers through the gateway's error writer, which reads the gateway's settings.
  process.env.REDIS_URL = server.url;
  process.env.PRINCIPAL_SECRET = 'p'.repeat(40);
  ({ setCaller } = await import('../server/index.ts'));
  ({ rateLimitPerClient } = await import('./rate-limit.ts'));
});
after(async () => {
  redis?.disconnect();
  await server?.stop();
});

test('one budget per OAuth client, whichever user it acts for: 429 with Retry-After above it, other clients unaffected', async () => {
  const limit = new CallerRateLimit({ redis, keySecret: limitKeySecret('s'.repeat(40)), name: 'client', perMinute: 3 });
  const app = express();
  app.use((_req, _res, next) => requestContext.run({ requestId: 'per-client' }, next));
  app.use((req, res, next) => {
    const principal = {
      userId: String(req.query.user),
      tenantId: 'rs-a',
      role: 'doctor',
      scopes: ['simrs:read'],
      clientId: String(req.query.client),
    };
    setCaller(res, { principal, signPrincipal: () => 'signed' });
    next();
  });
  app.use(rateLimitPerClient(limit));
  app.use((_req, res) => void res.json({ ok: true }));
  const statuses: number[] = [];
  for (const user of ['u1', 'u2', 'u3', 'u4']) statuses.push((await request(app).get(`/?client=agent-1&user=${user}`)).status);
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  const refused = await request(app).get('/?client=agent-1&user=u5');
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers['retry-after']) >= 1);
  assert.match(refused.body.error.message, /this client made too many requests/);
  assert.equal((await request(app).get('/?client=agent-2&user=u1')).status, 200);
});
