// What the gateway passes on, seen by an echo server standing in for identity and records: forwarded
// headers believed only from TRUSTED_PROXIES, exactly one client address, credentials kept for identity
// and replaced by nothing (anonymous) for records.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { startRedisServer } from '../../../scripts/lib/redis.ts';
import type { RedisServer } from '../../../scripts/lib/redis.ts';

let echo: Server;
let echoUrl: string;
let redis: RedisServer;
let slowClosed: (() => void) | undefined;
const gateways: Record<'direct' | 'behindProxy', { proc: ServiceProcess; url: string }> = {} as never;

async function startGateway(extra: Record<string, string>): Promise<{ proc: ServiceProcess; url: string }> {
  const [port, ops, grpc] = await Promise.all([freePort(), freePort(), freePort()]);
  const proc = startService('gateway', 'gateway', {
    HOST: '127.0.0.1',
    GATEWAY_PORT: String(port),
    OPS_PORT: String(ops),
    IDENTITY_URL: echoUrl,
    IDENTITY_GRPC: `127.0.0.1:${grpc}`,
    RECORDS_URL: echoUrl,
    REDIS_URL: redis.url,
    PRINCIPAL_SECRET: 'p'.repeat(40),
    ...extra,
  });
  await waitForReady(`http://127.0.0.1:${ops}/readyz`);
  return { proc, url: `http://127.0.0.1:${port}` };
}

before(async () => {
  redis = await startRedisServer();
  echo = createServer((req, res) => {
    if (req.url === '/api/auth/slow') {
      // Starts an answer and never finishes it; tells the test when the gateway hangs up.
      res.writeHead(200, { 'content-type': 'text/plain' }).write('first part\n');
      res.once('close', () => slowClosed?.());
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => echo.listen(port, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${port}`;
  gateways.direct = await startGateway({});
  gateways.behindProxy = await startGateway({ TRUSTED_PROXIES: 'loopback' });
});

after(async () => {
  await Promise.all(Object.values(gateways).map((g) => g.proc.stop()));
  await new Promise((resolve) => echo.close(resolve));
  await redis?.stop();
});

async function seen(url: string, path: string, headers: Record<string, string>): Promise<IncomingHttpHeaders> {
  const res = await fetch(`${url}${path}`, { headers });
  assert.equal(res.status, 200);
  return (await res.json()) as IncomingHttpHeaders;
}

const spoof = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'evil.example' };

describe('forwarded headers', () => {
  test('without TRUSTED_PROXIES a client cannot claim https or another address', async () => {
    const h = await seen(gateways.direct.url, '/api/auth/ok', spoof);
    assert.equal(h['x-forwarded-proto'], 'http');
    assert.equal(h['x-forwarded-for'], '127.0.0.1');
  });

  test('behind a trusted proxy its X-Forwarded-Proto and client address are believed', async () => {
    const h = await seen(gateways.behindProxy.url, '/api/auth/ok', spoof);
    assert.equal(h['x-forwarded-proto'], 'https');
    assert.equal(h['x-forwarded-for'], '203.0.113.7', 'exactly one address: the client');
  });

  test('identity gets the credentials; records gets neither cookie nor token nor a principal for a stranger', async () => {
    const credentials = { cookie: 'simrs.session_token=abc.def', 'x-simrs-principal': 'forged' };
    const toIdentity = await seen(gateways.direct.url, '/api/auth/get-session', credentials);
    assert.equal(toIdentity.cookie, 'simrs.session_token=abc.def');
    assert.equal(toIdentity['x-simrs-principal'], undefined);
    const toRecords = await seen(gateways.direct.url, '/trpc/healthCheck', credentials);
    assert.equal(toRecords.cookie, undefined);
    assert.equal(toRecords.authorization, undefined);
    assert.equal(toRecords['x-simrs-principal'], undefined);
    assert.match(String(toRecords['x-request-id']), /^[\w.-]{8,64}$/);
  });
  test('a client that goes away mid-answer: the upstream request is given up at once, not held until its timeout', async () => {
    const closed = new Promise<void>((resolve) => (slowClosed = resolve));
    const abort = new AbortController();
    const res = await fetch(`${gateways.direct.url}/api/auth/slow`, { signal: abort.signal });
    const reader = res.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /first part/);
    const gone = performance.now();
    abort.abort();
    await closed;
    assert.ok(performance.now() - gone < 2_000, 'upstream connection released');
  });

  test("the caller's trace goes on: one traceparent upstream, same trace, the gateway's span as parent", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    for (const path of ['/api/auth/ok', '/trpc/healthCheck']) {
      const h = await seen(gateways.direct.url, path, { traceparent: `00-${traceId}-${callerSpan}-01` });
      const parts = String(h.traceparent).split('-');
      assert.equal(parts.length, 4, `exactly one traceparent: ${String(h.traceparent)}`);
      assert.equal(parts[1], traceId, path);
      assert.notEqual(parts[2], callerSpan, 'the parent is the gateway, not the caller');
    }
  });
});
