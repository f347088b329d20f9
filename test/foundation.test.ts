// Issue 2's acceptance, with the four services as separate processes on their own Postgres (embedded,
// so this test may stop it) and their own Redis: health through the gateway, typed gRPC hops, one trace
// across gateway, identity and notifier, and readiness following Postgres and Redis.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import request from 'supertest';
import { freePort, repoRoot, waitFor } from '@simrs/platform/testing';
import { startEmbeddedPostgres } from '../scripts/lib/postgres.ts';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { otlpEnv, startOtlpReceiver } from './support/otlp.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { seedUsers } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
const pgCleanups: Array<() => Promise<unknown>> = [];
let pgDir: string;
let pg: { stop(): Promise<void>; start(): Promise<void> };

before(async () => {
  pgDir = mkdtempSync(join(tmpdir(), 'simrs-pg-'));
  const pgPort = await freePort();
  const postgresUrl = await startEmbeddedPostgres(pgDir, pgCleanups, pgPort);
  pg = {
    stop: async () => {
      for (const c of pgCleanups.splice(0)) await c();
    },
    start: async () => void (await startEmbeddedPostgres(pgDir, pgCleanups, pgPort)),
  };
  [redis, smtp, otlp] = await Promise.all([startRedisServer(), startSmtpPeer(), startOtlpReceiver()]);
  stack = await startStack({
    postgresUrl,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: { all: otlpEnv(otlp.endpoint) },
  });
  await seedUsers(stack, [{ email: 'admin@trace.test', tenant: 'rs-trace', role: 'tenant_admin' }]);
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop(), otlp?.stop()]);
  await pg?.stop();
  if (pgDir) rmSync(pgDir, { recursive: true, force: true });
});

const ready = async (url: string) => (await fetch(`${url}/readyz`)).status;

describe('foundation', () => {
  test('healthCheck through the gateway', async () => {
    const res = await request(stack.gatewayUrl).get('/trpc/healthCheck').expect(200);
    assert.deepEqual(res.body, { result: { data: null } });
  });

  test('one trace id across gateway, identity (HTTP) and notifier (gRPC) for a sign-in code request', async () => {
    const before = smtp.messages.length;
    const res = await request(stack.gatewayUrl)
      .post('/api/auth/email-otp/send-verification-otp')
      .send({ email: 'admin@trace.test', type: 'sign-in' });
    assert.equal(res.status, 200);
    await smtp.waitForMail('admin@trace.test', before);
    const traceId = await waitFor('spans from all three services', async () => {
      const gatewayRoots = otlp.spans.filter((s) => s.service === 'gateway' && s.kind === 2 && s.parentSpanId === '');
      for (const root of gatewayRoots) {
        const trace = otlp.spans.filter((s) => s.traceId === root.traceId);
        const services = new Set(trace.map((s) => s.service));
        const grpcServer = trace.find((s) => s.service === 'notifier' && s.kind === 2 && s.name.includes('SendEmail'));
        if (services.has('identity') && grpcServer) return root.traceId;
      }
      return undefined;
    });
    // Parent links are intact: every span's parent is in the same trace (but the root's). Services export
    // in batches of their own, so a parent may arrive a moment after its children.
    const trace = await waitFor('every parent of the trace exported', async () => {
      const spans = otlp.spans.filter((s) => s.traceId === traceId);
      const ids = new Set(spans.map((s) => s.spanId));
      return spans.every((s) => !s.parentSpanId || ids.has(s.parentSpanId)) ? spans : undefined;
    });
    const identityClient = trace.find((s) => s.service === 'identity' && s.kind === 3 && s.name.includes('NotifierService/SendEmail'));
    assert.ok(identityClient, 'identity called the notifier over gRPC within the trace');
  });

  test('typed gRPC from the gateway to identity: a cookie is validated by identity', async () => {
    const res = await request(stack.gatewayUrl)
      .get('/trpc/healthCheck')
      .set('origin', stack.publicUrl)
      .set('cookie', 'simrs.session_token=not-a-session.signature');
    assert.equal(res.status, 200, 'an unknown session is anonymous, and healthCheck is public');
    const [validate, parent] = await waitFor('a ValidateSession server span and its parent', async () => {
      const server = otlp.spans.find((s) => s.service === 'identity' && s.kind === 2 && s.name.includes('IdentityService/ValidateSession'));
      const caller = server && otlp.spans.find((s) => s.spanId === server.parentSpanId);
      return server && caller ? ([server, caller] as const) : undefined;
    });
    assert.equal(parent?.service, 'gateway', 'the gRPC server span is a child of the gateway span that called it');
    assert.equal(parent?.kind, 3);
    assert.equal(parent?.traceId, validate.traceId);
  });

  test('readiness follows Redis', async () => {
    assert.equal(await ready(stack.urls.gatewayOps), 200);
    await redis.stop();
    await waitFor(
      'gateway and identity not ready',
      async () => (await ready(stack.urls.gatewayOps)) === 503 && (await ready(stack.urls.identityHttp)) === 503,
    );
    await redis.start();
    await waitFor(
      'gateway and identity ready again',
      async () => (await ready(stack.urls.gatewayOps)) === 200 && (await ready(stack.urls.identityHttp)) === 200,
    );
  });

  test('readiness follows Postgres', async () => {
    await pg.stop();
    await waitFor('database-backed services not ready', async () => {
      const states = await Promise.all([stack.urls.identityHttp, stack.urls.records, stack.urls.notifierHttp].map(ready));
      return states.every((s) => s === 503);
    });
    assert.equal((await fetch(`${stack.urls.records}/healthz`)).status, 200, 'liveness does not depend on the database');
    await pg.start();
    await waitFor(
      'ready again',
      async () => {
        const states = await Promise.all([stack.urls.identityHttp, stack.urls.records, stack.urls.notifierHttp].map(ready));
        return states.every((s) => s === 200);
      },
      30_000,
    );
  });

  test('a bad DATABASE_URL stops `npm start` with one line naming it', () => {
    const run = spawnSync(process.execPath, ['scripts/start.ts'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'nonsense' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.notEqual(run.status, 0);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /DATABASE_URL/);
  });
});
