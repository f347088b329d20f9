// Bad input through the gateway, on every route, against the real stack (gateway, identity, records,
// notifier as processes; Postgres; a private Redis; an SMTP peer): malformed JSON, wrong types, huge
// and deep bodies, bad UTF-8 and percent-encoding, unknown methods, duplicate and conflicting headers.
// Every answer is a 4xx in the shape documented for its path (never a 5xx), and the data is as it was.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:net';
import { startSmtpPeer } from '@simrs/platform/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/smtp-peer';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { assertDocumentedError, assertEnvelope } from './support/shapes.ts';
import { seedUsers, signInWithOtp } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let cookie: string;
let json: Record<string, string>;

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const nestedObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** A raw HTTP/1.1 exchange over a socket: methods, headers and bytes fetch() refuses to send. */
function raw(method: string, path: string, headers: [string, string][], body?: Buffer | string) {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    const url = new URL(stack.gatewayUrl);
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    const lines = [`${method} ${path} HTTP/1.1`, `host: ${url.host}`, 'connection: close', ...headers.map(([k, v]) => `${k}: ${v}`)];
    if (payload && !headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k))) lines.push(`content-length: ${payload.length}`);
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const out: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(':');
        out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let responseBody = rest.join('\r\n\r\n');
      if (/chunked/i.test(out['transfer-encoding'] ?? '')) responseBody = dechunk(responseBody);
      resolve({ status: Number(statusLine.split(' ')[1]), headers: out, body: responseBody });
    });
    socket.write(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), payload ?? Buffer.alloc(0)]));
  });
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const i = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, i), 16);
    if (!size) return out;
    out += rest.slice(i + 2, i + 2 + size);
    rest = rest.slice(i + 2 + size + 2);
  }
}

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({ postgresUrl: testServerUrl, redisUrl: redis.url, smtpUrl: smtp.url, dbPrefix: `bad_${process.pid}_` });
  await seedUsers(stack, [{ email: 'admin@rs-bad.test', tenant: 'rs-bad', role: 'tenant_admin' }]);
  ({ cookie } = await signInWithOtp(stack, smtp, 'admin@rs-bad.test'));
  json = { 'content-type': 'application/json', origin: stack.publicUrl, cookie };
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

describe('issue 14 defects', () => {
  test('(2) 20,000 levels of JSON to POST /api/v1/pasien and 5,000 to update-session: 400 in the envelope', async () => {
    for (const headers of [{ 'content-type': 'application/json' }, json]) {
      const res = await fetch(`${stack.gatewayUrl}/api/v1/pasien`, { method: 'POST', headers, body: nested(20_000) });
      assert.equal(res.status, 400);
      assertEnvelope(await res.json(), 400, 'deep pasien');
    }
    const trpc = await fetch(`${stack.gatewayUrl}/trpc/pasien.create`, { method: 'POST', headers: json, body: nestedObject(20_000) });
    assert.equal(trpc.status, 400);
    assertEnvelope(await trpc.json(), 400, 'deep tRPC body');
    const query = await fetch(`${stack.gatewayUrl}/trpc/pasien.list?input=${encodeURIComponent(nested(1_000))}`, { headers: json });
    assert.equal(query.status, 400);
    assertEnvelope(await query.json(), 400, 'deep tRPC query input');
    const session = await fetch(`${stack.gatewayUrl}/api/auth/update-session`, {
      method: 'POST',
      headers: json,
      body: nestedObject(5_000),
    });
    assert.equal(session.status, 400);
    assertEnvelope(await session.json(), 400, 'deep update-session');
    // Straight at the services too (defence in depth behind the gateway).
    const direct = await fetch(`${stack.urls.identityHttp}/api/auth/update-session`, {
      method: 'POST',
      headers: json,
      body: nestedObject(5_000),
    });
    assert.equal(direct.status, 400);
    const records = await fetch(`${stack.urls.records}/api/v1/pasien`, { method: 'POST', headers: json, body: nested(20_000) });
    assert.equal(records.status, 400);
  });

  test('(3) TRACE and other methods a route does not serve: 405 with Allow', async () => {
    for (const [method, path] of [
      ['TRACE', '/trpc/pasien.list'],
      ['TRACE', '/api/v1/pasien'],
      ['TRACE', '/api/auth/get-session'],
      ['PUT', '/trpc/pasien.list'],
      ['DELETE', '/auth/sign-in'],
      ['PROPFIND', '/api/v1/pasien'],
      ['PATCH', '/.well-known/openid-configuration'],
    ] as const) {
      const res = await raw(method, path, [
        ['cookie', cookie],
        ['origin', stack.publicUrl],
      ]);
      assert.equal(res.status, 405, `${method} ${path}: ${res.status} ${res.body.slice(0, 200)}`);
      const allow = String(res.headers.allow ?? '');
      assert.ok(allow.length > 0 && !allow.includes(method), `${method} ${path}: Allow: ${allow}`);
      await assertDocumentedError(
        new Response(res.body, { status: 405, headers: { 'content-type': String(res.headers['content-type']) } }),
        path,
        `${method} ${path}`,
      );
    }
  });

  test('(6) unknown paths answer in the documented shape', async () => {
    for (const path of [
      '/api/auth/nothing',
      '/auth/dashboard',
      '/trpc/nothing',
      '/api/v1/nothing',
      '/nothing',
      '/api/auth/oauth2/nothing',
    ]) {
      const res = await fetch(`${stack.gatewayUrl}${path}`, { headers: { origin: stack.publicUrl } });
      assert.equal(res.status, 404, path);
      await assertDocumentedError(res, path, `GET ${path}`);
    }
  });
});
