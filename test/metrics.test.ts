// Issue 8: after some traffic (sign-ins that work and fail, by code and by link, patient lists, an
// unknown procedure, a refused token request), every service's /metrics has the series the runbook
// and the alerts use, with sensible values; no label carries an address or a token.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { readFileSync } from 'node:fs';
import { RUNTIME_SERIES } from '@simrs/platform/runtime-metrics';
import { has, scrape, sum } from './support/prom.ts';
import type { Sample } from './support/prom.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { isOtpMail, seedUsers, sessionCookie, signInWithOtp } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
const scrapes: Partial<Record<'gateway' | 'identity' | 'records' | 'notifier', Sample[]>> = {};

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({ postgresUrl: testServerUrl, dbPrefix: `t_metrics_${Date.now()}_`, redisUrl: redis.url, smtpUrl: smtp.url });
  await seedUsers(stack, [
    { email: 'admin@rs-metrics.test', tenant: 'rs-metrics', role: 'tenant_admin' },
    { email: 'dokter@rs-metrics.test', tenant: 'rs-metrics', role: 'doctor' },
  ]);
  const gw = stack.gatewayUrl;
  const json = { 'content-type': 'application/json', origin: stack.publicUrl };

  // Sign-ins: by code (a wrong one first), by link (then the used link again).
  let since = smtp.messages.length;
  await fetch(`${gw}/api/auth/email-otp/send-verification-otp`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: 'admin@rs-metrics.test', type: 'sign-in' }),
  });
  // The code's mail, not the invitation's (both are relayed through identity's outbox, in any order).
  await smtp.waitForMail('admin@rs-metrics.test', since, isOtpMail);
  await (
    await fetch(`${gw}/api/auth/sign-in/email-otp`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@rs-metrics.test', otp: '000000' }),
    })
  ).text();
  const { cookie } = await signInWithOtp(stack, smtp, 'admin@rs-metrics.test');
  since = smtp.messages.length;
  await (
    await fetch(`${gw}/api/auth/sign-in/magic-link`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'dokter@rs-metrics.test' }),
    })
  ).text();
  const mail = await smtp.waitForMail(
    'dokter@rs-metrics.test',
    since,
    (m) => /magic-link\/verify/.test(m.text) && !/undangan|invit/i.test(m.subject),
  );
  const link = new URL(/https?:\/\/\S+magic-link\/verify\S+/.exec(mail.text)![0]);
  const opened = await fetch(`${gw}${link.pathname}${link.search}`, { redirect: 'manual' });
  assert.ok(sessionCookie(opened.headers.getSetCookie()), 'the link signs in');
  await (await fetch(`${gw}${link.pathname}${link.search}`, { redirect: 'manual' })).text();

  // API traffic: lists (the first validates the cookie, the next hit the cache), an unknown procedure.
  for (let i = 0; i < 4; i++) await (await fetch(`${gw}/trpc/pasien.list`, { headers: { cookie, origin: stack.publicUrl } })).text();
  await (await fetch(`${gw}/trpc/pasien.nope`, { headers: { cookie, origin: stack.publicUrl } })).text();
  // A token request from a client that does not exist.
  await (
    await fetch(`${gw}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=nothing',
    })
  ).text();

  const urls = {
    gateway: stack.urls.gatewayOps,
    identity: stack.urls.identityHttp,
    records: stack.urls.records,
    notifier: stack.urls.notifierHttp,
  };
  for (const [name, url] of Object.entries(urls)) scrapes[name as keyof typeof urls] = await scrape(url);
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

describe('metrics after traffic', () => {
  test('gateway: requests, errors and latency per route; credential cache; Redis; upstream pools', () => {
    const s = scrapes.gateway!;
    assert.ok(sum(s, 'gateway_requests_total', { route: '/trpc/pasien.list', outcome: 'ok' }) >= 4);
    assert.ok(
      sum(s, 'gateway_requests_total', { route: '/trpc/{unknown}', outcome: 'client_error' }) >= 1,
      'an unknown procedure is {unknown}',
    );
    assert.equal(
      sum(s, 'gateway_request_duration_count', { route: '/trpc/pasien.list' }),
      sum(s, 'gateway_requests_total', { route: '/trpc/pasien.list' }),
    );
    const latency =
      sum(s, 'gateway_request_duration_sum', { route: '/trpc/pasien.list' }) /
      sum(s, 'gateway_request_duration_count', { route: '/trpc/pasien.list' });
    assert.ok(latency > 0 && latency < 2, `mean latency ${latency}s`);
    assert.ok(sum(s, 'gateway_requests_total', { route: '/api/auth/sign-in/email-otp' }) >= 2);
    assert.ok(
      sum(s, 'gateway_credential_cache_lookups_total', { credential: 'session', result: 'hit' }) >= 3,
      'repeated cookies hit the cache',
    );
    assert.ok(sum(s, 'gateway_credential_cache_lookups_total', { credential: 'session', result: 'miss' }) >= 1);
    assert.ok(sum(s, 'gateway_credential_cache_entries', { credential: 'session' }) >= 1);
    assert.ok(has(s, 'gateway_credential_cache_lookups_total', { credential: 'bearer' }));
    assert.equal(sum(s, 'gateway_revocations_live'), 1);
    assert.equal(sum(s, 'redis_connection_up', { connection: 'gateway' }), 1);
    assert.ok(sum(s, 'gateway_upstream_connections', { upstream: 'records', state: 'connected' }) >= 1);
    assert.ok(
      has(s, 'http_server_request_duration_count', { http_route: '/trpc/pasien.list' }),
      'the HTTP instrumentation uses the same route',
    );
  });

  test('identity: sign-ins by method and outcome, OTP and link failures, codes requested, tokens, device codes, pools', () => {
    const s = scrapes.identity!;
    assert.ok(sum(s, 'identity_sign_ins_total', { method: 'otp', outcome: 'success' }) >= 1);
    assert.ok(sum(s, 'identity_sign_ins_total', { method: 'otp', outcome: 'failure' }) >= 1);
    assert.ok(sum(s, 'identity_sign_in_failures_total', { method: 'otp', reason: 'INVALID_OTP' }) >= 1);
    assert.equal(sum(s, 'identity_sign_ins_total', { method: 'magic_link', outcome: 'success' }), 1);
    assert.ok(sum(s, 'identity_sign_ins_total', { method: 'magic_link', outcome: 'failure' }) >= 1, 'a used link is a failure');
    assert.ok(sum(s, 'identity_sign_in_failures_total', { method: 'magic_link' }) >= 1);
    assert.ok(sum(s, 'identity_codes_requested_total', { kind: 'otp', outcome: 'accepted' }) >= 2);
    assert.ok(sum(s, 'identity_codes_requested_total', { kind: 'magic_link', outcome: 'accepted' }) >= 1);
    assert.ok(sum(s, 'identity_token_errors_total', { grant_type: 'client_credentials' }) >= 1);
    assert.ok(has(s, 'identity_device_codes_pending'), 'device codes pending is reported');
    assert.equal(sum(s, 'identity_device_codes_pending'), 0);
    assert.ok(sum(s, 'pg_pool_max', { pool: 'identity' }) > 0);
    assert.ok(has(s, 'pg_pool_connections', { pool: 'identity', state: 'idle' }));
    assert.equal(sum(s, 'redis_connection_up', { connection: 'identity' }), 1);
  });

  test('records: calls, errors and latency per procedure; Postgres pool', () => {
    const s = scrapes.records!;
    assert.ok(sum(s, 'records_procedure_calls_total', { procedure: 'pasien.list', outcome: 'ok' }) >= 4);
    assert.ok(sum(s, 'records_procedure_calls_total', { procedure: '{unknown}', outcome: 'client_error' }) >= 1);
    assert.ok(sum(s, 'records_procedure_duration_count', { procedure: 'pasien.list' }) >= 4);
    assert.ok(sum(s, 'records_procedure_duration_bucket', { procedure: 'pasien.list', le: '+Inf' }) >= 4);
    // Recorded by records itself while spans are not exported (server/tracing.ts), by the route as the instrumentation would.
    assert.ok(sum(s, 'http_server_request_duration_count', { http_route: '/trpc/pasien.list', http_response_status_code: '200' }) >= 4);
    assert.ok(sum(s, 'pg_pool_connections', { pool: 'records' }) >= 1, 'the pool holds a connection');
    assert.equal(sum(s, 'pg_pool_waiting', { pool: 'records' }), 0, 'a scrape waits for no connection');
    assert.ok(
      s.some((x) => x.name.startsWith('records_satusehat_oldest_queued_age')),
      'the SATUSEHAT backlog the alert reads is always reported',
    );
  });

  test('notifier: queue depth, oldest message age, dead letters, deliveries; Postgres pool', () => {
    const s = scrapes.notifier!;
    assert.ok(sum(s, 'notifier_messages_accepted_total', { template: 'sign_in_otp' }) >= 2);
    assert.ok(sum(s, 'notifier_send_attempts_total', { outcome: 'sent' }) >= 3);
    assert.equal(sum(s, 'notifier_store_up'), 1);
    for (const state of ['queued', 'sending', 'dead'])
      assert.ok(has(s, 'notifier_deliveries', { state }), `notifier_deliveries{state="${state}"}`);
    assert.equal(sum(s, 'notifier_deliveries', { state: 'dead' }), 0);
    const age = sum(s, 'notifier_oldest_open_message_age');
    assert.ok(has(s, 'notifier_oldest_open_message_age') && age >= 0 && age < 60, `oldest open message ${age}s`);
    assert.ok(sum(s, 'pg_pool_max', { pool: 'notifier' }) > 0);
  });

  test("every service: its process's event loop, heap by space, GC pauses and RSS, labelled with its name", () => {
    for (const [service, samples] of Object.entries(scrapes)) {
      const of = (name: string, labels: Record<string, string> = {}) => sum(samples!, name, { service_name: service, ...labels });
      const missing = RUNTIME_SERIES.filter((name) => !has(samples!, name, { service_name: service }));
      assert.deepEqual(missing, [], `${service} exposes every runtime series`);
      // The RSS it reports is the process's own, as the kernel counts it (read just after the scrape).
      const pid = stack.services[service as keyof typeof scrapes].child.pid!;
      const kernelRss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
      const rss = of('process_memory_usage');
      assert.ok(rss > 20e6 && Math.abs(rss - kernelRss) < kernelRss * 0.25, `${service} RSS ${rss} against the kernel's ${kernelRss}`);
      for (const space of ['new_space', 'old_space', 'code_space'])
        assert.ok(of('v8js_memory_heap_space_physical_size', { v8js_heap_space_name: space }) > 0, `${service} ${space}`);
      assert.ok(of('v8js_memory_heap_used') > 1e6 && of('v8js_memory_heap_used') < rss, `${service} heap used`);
      assert.ok(of('v8js_gc_duration_count') >= 1, `${service} has collected garbage since it started`);
      assert.ok(of('v8js_gc_duration_sum') > 0 && of('v8js_gc_duration_sum') < 60, `${service} GC pauses`);
      const active = of('nodejs_eventloop_time_total', { nodejs_eventloop_state: 'active' });
      assert.ok(active > 0 && of('nodejs_eventloop_time_total', { nodejs_eventloop_state: 'idle' }) > 0, `${service} loop time`);
      const utilization = of('nodejs_eventloop_utilization');
      assert.ok(utilization > 0 && utilization <= 1, `${service} utilisation ${utilization}`);
      const p99 = of('nodejs_eventloop_delay_p99');
      assert.ok(p99 > 0 && p99 >= of('nodejs_eventloop_delay_p50') && p99 < 10, `${service} delay p99 ${p99}s`);
    }
  });

  test('no label value is an address, a token or an id', () => {
    for (const [service, samples] of Object.entries(scrapes)) {
      for (const sample of samples!) {
        for (const [k, v] of Object.entries(sample.labels)) {
          if (k.startsWith('otel_scope_') || k === 'db_namespace') continue; // package and database names
          if (k === 'v8js_heap_space_name' && /^[a-z_]+_space$/.test(v)) continue; // V8's names for its heap spaces
          assert.doesNotMatch(v, /@|[A-Za-z0-9_-]{24,}|\d{6,}/, `${service} ${sample.name} ${k}="${v}"`);
        }
      }
    }
  });
});
