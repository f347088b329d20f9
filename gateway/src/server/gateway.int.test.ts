// The gateway as a real process in front of a real records process, with identity absent: routing,
// the error envelope, a quick 503 for a dead upstream, and the principal header never passing through.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import request from 'supertest';
import { freePort, startService, throwawayDatabase, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { signPrincipal } from '@simrs/contracts/principal';
import { startRedisServer } from '../../../scripts/lib/redis.ts';
import { recordsAppUrl } from '../../../scripts/lib/stack.ts';
import type { RedisServer } from '../../../scripts/lib/redis.ts';

const secret = 'x'.repeat(40);
let gateway: ServiceProcess;
let records: ServiceProcess;
let redis: RedisServer;
let db: Awaited<ReturnType<typeof throwawayDatabase>>;
let url: string;
let opsUrl: string;

before(async () => {
  db = await throwawayDatabase('gateway');
  redis = await startRedisServer();
  const [gatewayPort, opsPort, recordsPort, deadPort, deadGrpc] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  records = startService('records', 'services/records', {
    HOST: '127.0.0.1',
    HTTP_PORT: String(recordsPort),
    DATABASE_URL: recordsAppUrl(db.url),
    MIGRATION_DATABASE_URL: db.url,
    PRINCIPAL_SECRET: secret,
  });
  gateway = startService('gateway', 'gateway', {
    HOST: '127.0.0.1',
    GATEWAY_PORT: String(gatewayPort),
    OPS_PORT: String(opsPort),
    RECORDS_URL: `http://127.0.0.1:${recordsPort}`,
    IDENTITY_URL: `http://127.0.0.1:${deadPort}`,
    IDENTITY_GRPC: `127.0.0.1:${deadGrpc}`,
    REDIS_URL: redis.url,
    PRINCIPAL_SECRET: secret,
    CORS_ALLOWED_ORIGINS: 'https://allowed.example',
    MAX_BODY_BYTES: '2048',
    BODY_TIMEOUT_MS: '1000',
    CREDENTIAL_FAILURES_PER_MINUTE: '5',
    RATE_LIMIT_PER_MINUTE: '400',
  });
  url = `http://127.0.0.1:${gatewayPort}`;
  opsUrl = `http://127.0.0.1:${opsPort}`;
  await Promise.all([waitForReady(`http://127.0.0.1:${recordsPort}/readyz`), waitForReady(`${opsUrl}/readyz`)]);
});

after(async () => {
  await gateway?.stop();
  await records?.stop();
  await redis?.stop();
  await db?.drop();
});

function assertEnvelope(body: unknown, code: string, status: number, path: string) {
  const { error } = body as { error: { message: string; code: number; data: { code: string; httpStatus: number; path: string } } };
  assert.equal(typeof error.message, 'string');
  assert.equal(typeof error.code, 'number');
  assert.equal(error.data.code, code);
  assert.equal(error.data.httpStatus, status);
  assert.equal(error.data.path, path);
  assert.doesNotMatch(JSON.stringify(body), /at .*\.ts:\d+/, 'no stack trace');
}

describe('gateway routing', () => {
  test('GET /trpc/healthCheck needs no credential', async () => {
    const res = await request(url).get('/trpc/healthCheck').expect(200);
    assert.deepEqual(res.body, { result: { data: null } });
    assert.match(res.headers['x-request-id'] ?? '', /^[\w.-]{8,64}$/);
  });

  test('an unknown procedure answers 404 in the envelope', async () => {
    const res = await request(url).get('/trpc/pasien.nope').expect(404);
    assertEnvelope(res.body, 'NOT_FOUND', 404, 'pasien.nope');
  });

  test('an unknown route answers 404 in the envelope', async () => {
    const res = await request(url).get('/no/such/route').expect(404);
    assertEnvelope(res.body, 'NOT_FOUND', 404, '/no/such/route');
  });

  test('a dead upstream gives a quick 503 in the envelope', async () => {
    const started = Date.now();
    const res = await request(url).post('/api/auth/sign-in/magic-link').send({ email: 'a@b.test' }).expect(503);
    assert.ok(Date.now() - started < 3_000, 'answers quickly');
    assertEnvelope(res.body, 'SERVICE_UNAVAILABLE', 503, '/api/auth/sign-in/magic-link');
    assert.equal(res.headers['retry-after'], '1');
  });

  test('a principal header sent by a client is stripped', async () => {
    const forged = await signPrincipal({ userId: 'u', tenantId: 'rs-demo', role: 'doctor', scopes: ['simrs:read'] }, secret);
    // Even a correctly signed principal (a leaked one) does not pass through the gateway.
    const res = await request(url).get('/trpc/pasien.list').set('x-simrs-principal', forged);
    assertEnvelope(res.body, 'UNAUTHORIZED', 401, 'pasien.list');
  });

  test('a cookie without an allowed Origin is not a credential (identity is not even asked)', async () => {
    const res = await request(url)
      .get('/trpc/healthCheck')
      .set('cookie', 'simrs.session_token=abc.def')
      .set('origin', 'https://evil.example');
    assert.equal(res.status, 200, 'public procedures still answer');
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  test('with identity down, a cookie from an allowed origin gives 503, not a hang', async () => {
    const res = await request(url)
      .get('/trpc/healthCheck')
      .set('cookie', 'simrs.session_token=abc.def')
      .set('origin', 'https://allowed.example');
    assertEnvelope(res.body, 'SERVICE_UNAVAILABLE', 503, 'healthCheck');
  });

  test('CORS: allow-listed origins get credentials, preflights end at the edge', async () => {
    const pre = await request(url)
      .options('/trpc/pasien.list')
      .set('origin', 'https://allowed.example')
      .set('access-control-request-method', 'GET')
      .expect(204);
    assert.equal(pre.headers['access-control-allow-origin'], 'https://allowed.example');
    assert.equal(pre.headers['access-control-allow-credentials'], 'true');
    assert.equal(pre.headers['access-control-max-age'], '600');
    const other = await request(url)
      .options('/trpc/pasien.list')
      .set('origin', 'https://evil.example')
      .set('access-control-request-method', 'GET');
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });

  test('/healthz, /readyz and /metrics are on the ops port only', async () => {
    await request(opsUrl).get('/healthz').expect(200);
    const ready = await request(opsUrl).get('/readyz').expect(200);
    assert.deepEqual(ready.body.checks, { redis: 'ok' });
    const metrics = await request(opsUrl).get('/metrics').expect(200);
    assert.match(metrics.text, /http_server_request_duration/);
    for (const path of ['/readyz', '/metrics']) await request(url).get(path).expect(404);
  });

  test('a body over MAX_BODY_BYTES answers 413 before reaching a service, chunked or not', async () => {
    const big = JSON.stringify({ email: 'x'.repeat(4096) });
    const sized = await request(url).post('/api/auth/sign-in/magic-link').set('content-type', 'application/json').send(big);
    assertEnvelope(sized.body, 'PAYLOAD_TOO_LARGE', 413, '/api/auth/sign-in/magic-link');
    const chunked = await fetch(`${url}/trpc/pasien.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          // Just over the limit, so that the whole body is sent before the gateway answers and closes.
          for (let i = 0; i < 3; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
    assertEnvelope(await chunked.json(), 'PAYLOAD_TOO_LARGE', 413, 'pasien.create');
  });

  test('a refused body is read to its end before the 413, so the client gets the answer and no reset', async () => {
    // A server that closes with unread bytes resets the connection, and the reset can take the
    // answer with it; the client here sends the rest of its body after the gateway has had time to answer.
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const errors: string[] = [];
    socket.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const part = 'x'.repeat(2000); // four of them: over MAX_BODY_BYTES, within what is read before the answer
    socket.write(
      `POST /trpc/pasien.create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${part.length * 4}\r\n\r\n${part}`,
    );
    const sent = (chunk: string) =>
      new Promise<void>((resolve) => socket.write(chunk, (err) => (err && errors.push(err.message), resolve())));
    for (let i = 1; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(answer, '', 'the gateway answered before the body had arrived');
      await sent(part);
    }
    socket.end();
    await closed;
    assert.deepEqual(errors, []);
    assert.match(answer, /^HTTP\/1\.1 413/);
    assert.match(answer, /"PAYLOAD_TOO_LARGE"/);
  });

  test('a trickled body holds no upstream connection and times out with 408', async () => {
    const port = Number(new URL(url).port);
    const sockets = Array.from({ length: 140 }, () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write('POST /trpc/pasien.create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
      return socket;
    });
    try {
      // More stalled bodies than the upstream pool has connections, and the API still answers.
      await request(url).get('/trpc/healthCheck').expect(200);
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        sockets[0]!.on('data', (d: Buffer) => (text += d.toString()));
        sockets[0]!.on('close', () => resolve(text));
      });
      assert.match(answer, /^HTTP\/1\.1 408/);
      assert.match(answer, /"TIMEOUT"/);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  test('odd paths: bad percent-encoding, another case, Expect: 100-continue', async () => {
    const bad = await request(url).get('/trpc/%E0%A4').set('authorization', 'Bearer not-a-token');
    assertEnvelope(bad.body, 'UNAUTHORIZED', 401, '%E0%A4');
    const upper = await request(url).get('/TRPC/healthCheck');
    assertEnvelope(upper.body, 'NOT_FOUND', 404, '/TRPC/healthCheck');
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${url}/trpc/pasien.create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '12', expect: '100-continue' },
      });
      req.on('continue', () => req.end('{"nama":"x"}'));
      req.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)));
      req.on('error', reject);
    });
    assert.equal(status, 401, 'forwarded, not a false 503');
  });

  // Near the end: it cools this client's credentials down.
  test('rejected credentials are counted per client IP: over the limit, 429 without checking them', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await request(url).get('/trpc/healthCheck').set('authorization', `Bearer junk.${i}.x`)).status);
    assert.ok(
      statuses.slice(0, 4).every((s) => s === 401),
      statuses.join(','),
    );
    const limited = await request(url).get('/trpc/healthCheck').set('authorization', 'Bearer junk.x.y');
    assertEnvelope(limited.body, 'TOO_MANY_REQUESTS', 429, 'healthCheck');
    await request(url).get('/trpc/healthCheck').expect(200); // without a credential: still served
  });

  // Last: it spends this client's request budget.
  test('a caller over RATE_LIMIT_PER_MINUTE gets 429 with Retry-After', async () => {
    let limited: request.Response | undefined;
    for (let i = 0; i < 500 && !limited; i++) {
      const res = await request(url).get('/trpc/healthCheck');
      if (res.status === 429) limited = res;
    }
    assert.ok(limited, 'limited within 500 requests');
    assertEnvelope(limited.body, 'TOO_MANY_REQUESTS', 429, 'healthCheck');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  });
});
