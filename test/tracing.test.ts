// Issue 8: one sign-in by e-mail code and one pasien.list through the whole stack, exported to an
// OTLP receiver in the test, and the span trees they make: one trace id per request, the expected
// services and span kinds, parent links intact, span names after the route or procedure, tenant and
// outcome attributes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { otlpEnv, startOtlpReceiver } from './support/otlp.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { CLIENT, SERVER, isDb, traceOf } from './support/traces.ts';
import type { Trace } from './support/traces.ts';
import { seedUsers, signInWithOtp } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let cookie: string;
const TENANT = 'rs-trace';

before(async () => {
  [redis, smtp, otlp] = await Promise.all([startRedisServer(), startSmtpPeer(), startOtlpReceiver()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_trace_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: { all: otlpEnv(otlp.endpoint) },
  });
  await seedUsers(stack, [{ email: 'dokter@rs-trace.test', tenant: TENANT, role: 'tenant_admin' }]);
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop(), otlp?.stop()]);
});

function assertLinked(t: Trace): void {
  assert.equal(new Set(t.spans.map((s) => s.traceId)).size, 1);
  assert.ok(t.root, 'the trace has a root');
  assert.equal(t.root.service, 'gateway', 'the gateway is the root');
  assert.equal(t.root.kind, SERVER);
  assert.deepEqual(
    t.orphans().map((s) => `${s.service} ${s.name}`),
    [],
    'every span but the root has its parent in the trace',
  );
  assert.equal(t.spans.filter((s) => s.parentSpanId === '').length, 1, 'one root');
}

describe('traces', () => {
  test('sign-in by e-mail code: gateway -> identity -> notifier, one trace per request', async () => {
    const since = otlp.spans.length;
    const signedIn = await signInWithOtp(stack, smtp, 'dokter@rs-trace.test');
    cookie = signedIn.cookie;

    const send = await traceOf(
      otlp.spans,
      'POST /api/auth/email-otp/send-verification-otp',
      // A span is exported when it ends: wait for the parents still running (the notifier's send span
      // outlives the pool connect it made) before checking that every span has its parent.
      (t) => Boolean(t.find((s) => s.service === 'notifier' && s.kind === SERVER)) && t.orphans().length === 0,
      since,
    );
    assertLinked(send);
    assert.deepEqual(new Set(send.spans.map((s) => s.service)), new Set(['gateway', 'identity', 'notifier']));
    assert.equal(send.root!.attributes['simrs.outcome'], 'ok');
    assert.equal(send.root!.attributes['http.route'], '/api/auth/email-otp/send-verification-otp');
    const identityServer = send.find((s) => s.service === 'identity' && s.kind === SERVER)!;
    assert.equal(identityServer.name, 'POST /api/auth/email-otp/send-verification-otp');
    assert.equal(send.serverAbove(identityServer), send.root, 'identity serves the gateway request');
    const grpcClient = send.find((s) => s.service === 'identity' && s.kind === CLIENT && s.name.includes('NotifierService/SendEmail'));
    assert.ok(grpcClient, 'identity calls SendEmail over gRPC');
    const notifierServer = send.find((s) => s.service === 'notifier' && s.kind === SERVER)!;
    assert.match(notifierServer.name, /NotifierService\/SendEmail$/);
    assert.equal(notifierServer.parentSpanId, grpcClient.spanId, 'the notifier server span is a child of the gRPC client span');
    assert.equal(send.serverAbove(grpcClient), identityServer);
    // Redis (rate limits, the code) and Postgres (the user) inside identity.
    assert.ok(
      send.find((s) => s.service === 'identity' && s.kind === CLIENT && isDb(s, 'redis')),
      'a Redis span',
    );
    assert.ok(
      send.find((s) => s.service === 'identity' && s.kind === CLIENT && isDb(s, 'postgresql')),
      'a Postgres span',
    );
    // The message is stored in Postgres within the same trace, and the SMTP delivery follows it.
    assert.ok(
      send.find((s) => s.service === 'notifier' && isDb(s, 'postgresql')),
      'the notifier stores the message',
    );
    await traceOf(
      otlp.spans,
      send.root!.name,
      (t) => Boolean(t.find((s) => s.service === 'notifier' && s.name === 'notifier.send')),
      since,
    );

    const verify = await traceOf(
      otlp.spans,
      'POST /api/auth/sign-in/email-otp',
      (t) => Boolean(t.find((s) => s.service === 'identity' && s.kind === SERVER)),
      since,
    );
    assertLinked(verify);
    const identityVerify = verify.find((s) => s.service === 'identity' && s.kind === SERVER)!;
    assert.equal(identityVerify.name, 'POST /api/auth/sign-in/email-otp');
    assert.equal(verify.serverAbove(identityVerify), verify.root);
    assert.notEqual(verify.root!.traceId, send.root!.traceId, 'each request is a trace of its own');
  });

  test('pasien.list: gateway -> records -> Postgres, named after the procedure, with the tenant', async () => {
    assert.ok(cookie, 'signed in by the previous test');
    const since = otlp.spans.length;
    const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.list?input=${encodeURIComponent('{"limit":5}')}`, {
      headers: { cookie, origin: stack.publicUrl },
    });
    assert.equal(res.status, 200, await res.text());

    const list = await traceOf(
      otlp.spans,
      'GET /trpc/pasien.list',
      (t) => Boolean(t.find((s) => s.service === 'records' && isDb(s, 'postgresql'))),
      since,
    );
    assertLinked(list);
    const root = list.root!;
    assert.equal(root.attributes['simrs.tenant_id'], TENANT);
    assert.equal(root.attributes['simrs.outcome'], 'ok');
    assert.equal(root.attributes['http.route'], '/trpc/pasien.list');
    const records = list.find((s) => s.service === 'records' && s.kind === SERVER)!;
    assert.ok(records, 'a records server span');
    assert.equal(records.name, 'pasien.list');
    assert.equal(records.attributes['simrs.tenant_id'], TENANT);
    assert.equal(records.attributes['simrs.outcome'], 'ok');
    assert.equal(list.serverAbove(records), root, 'records serves the gateway request');
    const proxyCall = list.byId(records.parentSpanId)!;
    assert.equal(proxyCall.service, 'gateway');
    assert.equal(proxyCall.kind, CLIENT, 'the gateway calls records with an HTTP client span');
    const pg = list.spans.filter((s) => s.service === 'records' && s.kind === CLIENT && isDb(s, 'postgresql'));
    assert.ok(pg.length > 0, 'Postgres client spans');
    for (const span of pg) assert.equal(list.serverAbove(span), records, `${span.name} is under the records server span`);
    // Exported spans carry the query's keys, never its values (tRPC input: names, NIKs).
    for (const span of [root, proxyCall, records]) {
      const url = ['url.full', 'url.query'].map((k) => String(span.attributes[k] ?? '')).join(' ');
      assert.match(url, /input=\[redacted\]/, `${span.service} ${span.name}: ${url}`);
      assert.doesNotMatch(url, /limit|%7B/i, `${span.service} ${span.name}: ${url}`);
    }
    // Exported, the wait for a pooled connection has its span (not made when nothing exports spans).
    assert.ok(
      pg.some((s) => s.name === 'pg-pool.connect'),
      pg.map((s) => s.name).join(', '),
    );
    // The session cookie was validated by identity over gRPC in the same trace (first use).
    const validate = list.find((s) => s.service === 'identity' && s.kind === SERVER && s.name.includes('ValidateSession'));
    assert.ok(validate, 'ValidateSession at identity');
    assert.equal(list.serverAbove(validate), root);

    // Once records' connection has prepared the transaction's statements, BEGIN, the tenant, the
    // statement and COMMIT go as one query (records' shims/pipeline.ts): one span for the transaction, carrying
    // the statement's text, still in the request's trace under records' server span.
    // The request may land on a pooled connection that has not prepared them yet (records' workers use
    // the pool too): that first use goes the long way, four spans, so ask again until a prepared one serves.
    let second: Awaited<ReturnType<typeof traceOf>> | undefined;
    let queries: typeof list.spans = [];
    for (let attempt = 0; attempt < 8 && queries.length !== 1; attempt++) {
      const since2 = otlp.spans.length;
      const again = await fetch(`${stack.gatewayUrl}/trpc/pasien.list?input=${encodeURIComponent('{"limit":5}')}`, {
        headers: { cookie, origin: stack.publicUrl },
      });
      assert.equal(again.status, 200, await again.text());
      second = await traceOf(
        otlp.spans,
        'GET /trpc/pasien.list',
        (t) =>
          Boolean(t.find((s) => s.service === 'records' && s.kind === CLIENT && isDb(s, 'postgresql') && s.name.startsWith('pg.query'))),
        since2,
      );
      assertLinked(second);
      queries = second.spans.filter((s) => s.service === 'records' && isDb(s, 'postgresql') && s.name.startsWith('pg.query'));
      assert.ok(queries.length === 1 || queries.length === 4, `one transaction: ${queries.map((s) => s.name).join(', ')}`);
    }
    const records2 = second!.find((s) => s.service === 'records' && s.kind === SERVER)!;
    assert.deepEqual(
      queries.map((s) => String(s.attributes['db.query.text']).includes('from records.pasien')),
      [true],
      `one query span, the statement's: ${queries.map((s) => s.name).join(', ')}`,
    );
    assert.equal(second!.serverAbove(queries[0]!), records2, 'under the records server span');
  });

  test('a failing call is recorded as an error with its outcome', async () => {
    const since = otlp.spans.length;
    const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.get?input=${encodeURIComponent('{"id":"not-a-uuid"}')}`, {
      headers: { cookie, origin: stack.publicUrl },
    });
    assert.equal(res.status, 400);
    const t = await traceOf(
      otlp.spans,
      'GET /trpc/pasien.get',
      (x) => Boolean(x.find((s) => s.service === 'records' && s.kind === SERVER)),
      since,
    );
    assert.equal(t.root!.attributes['simrs.outcome'], 'client_error');
    const records = t.find((s) => s.service === 'records' && s.kind === SERVER)!;
    assert.equal(records.attributes['simrs.outcome'], 'client_error');
    assert.equal(records.attributes['http.response.status_code'], 400);
  });
});
