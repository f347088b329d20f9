// What the gateway's routes answer to bad input, against the real stack: JSON 20,000 levels deep to the
// REST API, tRPC and identity (through the gateway and straight at the services) is a 400 in the
// envelope; TRACE and other methods a route does not serve are a 405 with Allow; unknown paths answer
// in the shape documented for their path. The battery over every route: bad-input.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumentedError, assertEnvelope } from './support/shapes.ts';
import { cookie, json, nested, nestedObject, raw, stack, useBadInputStack } from './support/bad-input.ts';

useBadInputStack('bad_routes');

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
