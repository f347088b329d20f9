// The names every JavaScript object inherits (Object.prototype's own property names, plus __proto__,
// constructor and prototype) sent to every route of every surface through the real stack: as a query
// key, as a query value where a name is expected (_sort, scope, grant_type, ...), as a path segment and
// as a JSON (and form) body key. A lookup keyed by request input in a plain object finds the inherited
// member; the answer must be a 4xx or 2xx, never a 5xx, without a credential and with each kind of one.
// identity's former pages (/auth/...) must still redirect to the dashboard's, the query as it was, and
// anything else under /auth must stay a 404.
// The REST operations and the FHIR interactions are read from the OpenAPI document and the
// CapabilityStatement the stack serves, so new ones are swept without editing this file.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { Browserless, issueRegistrationToken, registerClient, tokensFor } from './support/oauth.ts';
import type { RegisteredClient } from './support/oauth.ts';
import { seedUsers } from './support/users.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'constructor', 'prototype'])];
const ADMIN = 'admin@rs-protokeys.test';
const CONCURRENCY = 8;

interface Probe {
  method: string;
  /** Below the gateway, or absolute (the ops port). */
  url: string;
  body?: string;
  type?: string;
  /** Beyond never a 5xx: what the answer must be, as a message when it is not that. */
  expect?: (status: number, location: string | null) => string | undefined;
}
type Credential = 'none' | 'cookie' | 'bearer';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let app: RegisteredClient;
let cookie: string;
let bearer: string;
let patientId: string;

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    dbPrefix: `protokeys_${process.pid}_`,
    // Thousands of calls from one caller, some with refused credentials: the limits are other tests' subject.
    env: { gateway: { CREDENTIAL_FAILURES_PER_MINUTE: '1000000', RATE_LIMIT_PER_MINUTE: '1000000' } },
  });
  await seedUsers(stack, [{ email: ADMIN, tenant: 'rs-protokeys', role: 'tenant_admin' }]);
  app = await registerClient(stack, await issueRegistrationToken(stack, ADMIN, true), {
    client_name: 'prototype keys',
    redirect_uris: ['http://127.0.0.1:9/callback'],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_post',
  });
  const browser = new Browserless(stack);
  bearer = (await tokensFor(stack, smtp, app, browser, ADMIN, 'openid simrs:read simrs:write')).access_token;
  cookie = browser.cookie;
  const created = await fetch(`${stack.gatewayUrl}/api/v1/pasien`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      nik: '3273012307910001',
      nama: 'Budi Santoso',
      tempatLahir: 'Bandung',
      tanggalLahir: '1991-07-23',
      jenisKelamin: 'L',
      alamat: 'Jl. Kenari No. 7',
      kotaKabupaten: 'Bandung',
      provinsi: 'Jawa Barat',
    }),
  });
  assert.equal(created.status, 200, await created.clone().text());
  patientId = ((await created.json()) as { id: string }).id;
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

const json = (name: string, extra = '') => `{${extra}"${name}":1}`;
const enc = encodeURIComponent;

/** A route's probes: the name as a query key, as the value of each name-taking parameter, and as a body key. */
function around(method: string, path: string, valueParams: readonly string[], name: string, extraBody = ''): Probe[] {
  const sep = path.includes('?') ? '&' : '?';
  const probes: Probe[] = [{ method, url: `${path}${sep}${enc(name)}=x` }];
  for (const p of valueParams) probes.push({ method, url: `${path}${sep}${p}=${enc(name)}` });
  if (method !== 'GET' && method !== 'HEAD') {
    probes.push({ method, url: path, body: json(name, extraBody), type: 'application/json' });
    if (path.startsWith('/api/auth/oauth2/') || path.startsWith('/api/auth/device'))
      probes.push({
        method,
        url: path,
        body: `${enc(name)}=x&grant_type=${enc(name)}&token_type_hint=${enc(name)}&scope=${enc(name)}`,
        type: 'application/x-www-form-urlencoded',
      });
  }
  return probes;
}

const IDENTITY_GET = [
  '/api/auth/get-session',
  '/api/auth/account/me',
  '/api/auth/account/oauth-client',
  '/api/auth/account/sessions',
  '/api/auth/device',
  '/api/auth/jwks',
  '/api/auth/magic-link/verify',
  '/api/auth/oauth2/authorize',
  '/api/auth/oauth2/end-session',
  '/api/auth/oauth2/userinfo',
  '/api/auth/passkey/generate-authenticate-options',
  '/api/auth/passkey/generate-register-options',
  '/api/auth/passkey/list-user-passkeys',
  '/api/auth/tenant/device-requests',
  '/api/auth/tenant/names',
  '/api/auth/tenant/oauth-clients',
  '/api/auth/tenant/users',
  '/api/auth/.well-known/openid-configuration',
  '/.well-known/openid-configuration/api/auth',
  '/.well-known/oauth-authorization-server/api/auth',
  '/.well-known/oauth-protected-resource/api',
];
const IDENTITY_POST = [
  '/api/auth/account/revoke-session',
  '/api/auth/device/approve',
  '/api/auth/device/code',
  '/api/auth/device/deny',
  '/api/auth/email-otp/send-verification-otp',
  '/api/auth/oauth2/consent',
  '/api/auth/oauth2/introspect',
  '/api/auth/oauth2/par',
  '/api/auth/oauth2/register',
  '/api/auth/oauth2/revoke',
  '/api/auth/oauth2/token',
  '/api/auth/passkey/delete-passkey',
  '/api/auth/passkey/update-passkey',
  '/api/auth/passkey/verify-authentication',
  '/api/auth/passkey/verify-registration',
  '/api/auth/sign-in/email-otp',
  '/api/auth/sign-in/magic-link',
  '/api/auth/tenant/invite-user',
  '/api/auth/tenant/change-role',
  '/api/auth/tenant/registration-tokens',
  '/api/auth/tenant/revoke-oauth-client',
  '/api/auth/update-session',
];
/** They end the session the sweep signs in with: swept without a credential only. */
const IDENTITY_ENDING = ['/api/auth/sign-out', '/api/auth/revoke-other-sessions'];
/** Where identity reads a name from a query value: the authorization request. */
const AUTHORIZE_VALUES = ['scope', 'response_type', 'prompt', 'code_challenge_method', 'response_mode'];

function identityProbes(name: string, credential: Credential): Probe[] {
  const posts = credential === 'none' ? [...IDENTITY_POST, ...IDENTITY_ENDING] : IDENTITY_POST;
  const authorize = `/api/auth/oauth2/authorize?client_id=${enc(app.clientId)}&redirect_uri=${enc('http://127.0.0.1:9/callback')}`;
  return [
    ...IDENTITY_GET.flatMap((path) => around('GET', path, [], name)),
    ...posts.flatMap((path) => around('POST', path, [], name)),
    ...around('GET', authorize, AUTHORIZE_VALUES, name),
    ...['/api/auth', '/api/auth/oauth2', '/api/auth/tenant', '/.well-known'].flatMap((p) => [
      { method: 'GET', url: `${p}/${enc(name)}` },
      { method: 'POST', url: `${p}/${enc(name)}`, body: json(name), type: 'application/json' },
    ]),
  ];
}

/** identity's former pages: the gateway redirects each to the dashboard's page, the query as it was. */
const FORMER_PAGES: Record<string, string> = {
  '/auth': '/akun',
  '/auth/account': '/akun',
  '/auth/sign-in': '/masuk',
  '/auth/consent': '/izin',
  '/auth/device': '/perangkat',
};
/** The query values the former pages (and the dashboard's, where they lead) read. */
const PAGE_VALUES = ['lang', 'user_code', 'next', 'callbackURL', 'error', 'scope'];

/** The redirects of the former pages, with the name in their query; anything else under /auth is gone. */
function formerPageProbes(name: string): Probe[] {
  const probes: Probe[] = [];
  const gone = (status: number) => (status === 404 ? undefined : `${status}, not 404`);
  for (const [from, to] of Object.entries(FORMER_PAGES)) {
    const consent = from === '/auth/consent' ? `client_id=${enc(app.clientId)}&sig=x&` : '';
    for (const query of [`${consent}${enc(name)}=x`, ...PAGE_VALUES.map((p) => `${consent}${p}=${enc(name)}`)]) {
      const expected = `${to}?${query}`;
      probes.push({
        method: 'GET',
        url: `${from}?${query}`,
        expect: (status, location) =>
          status === 302 && location === expected ? undefined : `${status} to ${location}, not 302 to ${expected}`,
      });
    }
    probes.push({ method: 'POST', url: from, body: json(name), type: 'application/json', expect: gone });
  }
  for (const p of ['/auth', '/auth/assets', '/auth/sign-in'])
    probes.push(
      { method: 'GET', url: `${p}/${enc(name)}`, expect: gone },
      { method: 'GET', url: `${p}/${enc(name)}?next=${enc(name)}`, expect: gone },
    );
  probes.push({ method: 'GET', url: '/auth/assets/style.css', expect: gone });
  return probes;
}

function gatewayProbes(name: string): Probe[] {
  return [
    ...around('GET', '/', ['lang'], name),
    ...Object.values(FORMER_PAGES).flatMap((page) => around('GET', page, PAGE_VALUES, name)),
    ...around('GET', '/playground/', ['lang'], name),
    { method: 'GET', url: `/${enc(name)}` },
    { method: 'GET', url: `/playground/${enc(name)}` },
    { method: 'POST', url: `/${enc(name)}`, body: json(name), type: 'application/json' },
    ...['/healthz', '/readyz', '/metrics', `/${enc(name)}`].map((p) => ({
      method: 'GET',
      url: `${stack.urls.gatewayOps}${p}?${enc(name)}=1`,
    })),
  ];
}

/** tRPC: every procedure the OpenAPI document lists, by GET (queries) and POST (mutations), and batched. */
function trpcProbes(name: string, doc: Json): Probe[] {
  const probes: Probe[] = [];
  for (const item of Object.values(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const proc = String((op as Json).operationId).replace(/-/g, '.');
      const inputs = [json(name), json(name, `"id":"${patientId}",`), `"${name}"`, `{"status":"${name}","action":"${name}"}`];
      if (method === 'get') for (const input of inputs) probes.push({ method: 'GET', url: `/trpc/${proc}?input=${enc(input)}` });
      else for (const input of inputs) probes.push({ method: 'POST', url: `/trpc/${proc}`, body: input, type: 'application/json' });
      probes.push({ method: 'GET', url: `/trpc/${proc},${proc}?batch=1&input=${enc(`{"${name}":{},"0":${json(name)}}`)}` });
    }
  }
  probes.push({ method: 'GET', url: `/trpc/${enc(name)}` }, { method: 'GET', url: `/trpc/pasien.${enc(name)}` });
  return probes;
}

/** REST: every operation of the served OpenAPI document, path parameters filled with an id or the name. */
function restProbes(name: string, doc: Json): Probe[] {
  const prefix = String(doc.servers?.[0]?.url ?? '/api/v1');
  const probes: Probe[] = [{ method: 'GET', url: `${prefix}/${enc(name)}` }];
  for (const [template, item] of Object.entries(doc.paths as Json)) {
    for (const method of Object.keys(item as Json).map((m) => m.toUpperCase())) {
      const path = prefix + template.replace(/\{\w+\}/g, patientId);
      probes.push(...around(method, path, ['status', 'action', 'q'], name, '"reason":"x",'));
      if (template.includes('{')) probes.push({ method, url: prefix + template.replace(/\{\w+\}/g, enc(name)) });
      probes.push({ method, url: `${path}/${enc(name)}` });
    }
  }
  return probes;
}

const FHIR_VALUES = ['_sort', '_elements', '_summary', '_include', '_revinclude', '_format', '_total', '_count'];

/** FHIR: every resource type and interaction of the served CapabilityStatement. */
function fhirProbes(name: string, capability: Json, base: string): Probe[] {
  const probes: Probe[] = [
    ...around('GET', `${base}/metadata`, ['_format', 'mode'], name),
    { method: 'GET', url: `${base}/${enc(name)}` },
    { method: 'GET', url: `${base}/${enc(name)}/${patientId}` },
  ];
  const body = (type: string) => `{"resourceType":"${type}","${name}":1}`;
  for (const resource of capability.rest[0].resource as Json[]) {
    const type = String(resource.type);
    const id = `${base}/${type}/${patientId}`;
    const fhir = 'application/fhir+json';
    for (const { code } of resource.interaction as { code: string }[]) {
      if (code === 'search-type') {
        probes.push(...around('GET', `${base}/${type}`, FHIR_VALUES, name));
        probes.push({ method: 'GET', url: `${base}/${type}?${enc(name)}:exact=x&_sort=-${enc(name)}` });
        probes.push({
          method: 'POST',
          url: `${base}/${type}/_search`,
          body: `${enc(name)}=x&_sort=${enc(name)}`,
          type: 'application/x-www-form-urlencoded',
        });
      } else if (code === 'read')
        probes.push(...around('GET', id, FHIR_VALUES, name), { method: 'GET', url: `${base}/${type}/${enc(name)}` });
      else if (code === 'vread')
        probes.push(
          { method: 'GET', url: `${id}/_history/${enc(name)}` },
          { method: 'GET', url: `${id}/_history/1?_elements=${enc(name)}` },
        );
      else if (code === 'history-instance') probes.push(...around('GET', `${id}/_history`, ['_count', '_since', '_sort'], name));
      else if (code === 'create')
        probes.push(
          { method: 'POST', url: `${base}/${type}`, body: body(type), type: fhir },
          { method: 'POST', url: `${base}/${type}`, body: body(name), type: fhir },
        );
      else if (code === 'update')
        probes.push(
          { method: 'PUT', url: id, body: body(type), type: fhir },
          { method: 'PUT', url: `${base}/${type}/${enc(name)}`, body: body(type), type: fhir },
        );
      else if (code === 'delete') probes.push({ method: 'DELETE', url: `${base}/${type}/${enc(name)}` });
    }
  }
  return probes;
}

const CREDENTIALS: Record<Credential, () => Record<string, string>> = {
  none: () => ({}),
  cookie: () => ({ cookie, origin: stack.publicUrl }),
  bearer: () => ({ authorization: `Bearer ${bearer}` }),
};

/** Sends every probe with `credential`, a few at a time; returns the ones answered with a 5xx (or not at all). */
async function sweep(probes: Probe[], credential: Credential): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < probes.length) {
      const probe = probes[next++]!;
      const url = probe.url.startsWith('http') ? probe.url : `${stack.gatewayUrl}${probe.url}`;
      const headers = { ...CREDENTIALS[credential](), ...(probe.type ? { 'content-type': probe.type } : {}) };
      try {
        const res = await fetch(url, { method: probe.method, headers, body: probe.body ?? null, redirect: 'manual' });
        const text = await res.text();
        const wrong = res.status >= 500 ? `${res.status} ${text.slice(0, 160)}` : probe.expect?.(res.status, res.headers.get('location'));
        if (wrong) failures.push(`${credential} ${probe.method} ${probe.url} ${probe.body ?? ''}: ${wrong}`);
      } catch (err) {
        failures.push(`${credential} ${probe.method} ${probe.url}: no answer (${(err as Error).message})`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return failures;
}

describe('names every object inherits, on every route of every surface', () => {
  let doc: Json;
  let capability: Json;
  const sent: Record<string, number> = {};

  before(async () => {
    doc = (await (await fetch(`${stack.gatewayUrl}/api/v1/openapi.json`)).json()) as Json;
    capability = (await (await fetch(`${stack.gatewayUrl}/api/v1/fhir/metadata`)).json()) as Json;
  });

  test('the OpenAPI session scheme names the cookie sign-in set', () => {
    assert.equal(doc.components.securitySchemes.session.name, cookie.split('=')[0]);
  });

  test('GET /api/v1/pasien?constructor=x through the gateway: 401 without a credential, 400 with one', async () => {
    assert.equal((await fetch(`${stack.gatewayUrl}/api/v1/pasien?constructor=x`)).status, 401);
    const authed = await fetch(`${stack.gatewayUrl}/api/v1/pasien?constructor=x`, { headers: CREDENTIALS.bearer() });
    assert.equal(authed.status, 400);
  });

  const surfaces: [string, Credential[], (name: string, credential: Credential) => Probe[]][] = [
    ['gateway', ['none'], (name) => gatewayProbes(name)],
    ['identity', ['none', 'cookie'], identityProbes],
    ["identity's former pages", ['none', 'cookie'], (name) => formerPageProbes(name)],
    ['tRPC', ['none', 'cookie', 'bearer'], (name) => trpcProbes(name, doc)],
    ['REST', ['none', 'cookie', 'bearer'], (name) => restProbes(name, doc)],
    ['FHIR', ['none', 'cookie', 'bearer'], (name) => fhirProbes(name, capability, '/api/v1/fhir')],
  ];
  for (const [surface, credentials, probesFor] of surfaces) {
    test(`${surface}: never a 5xx (${credentials.join(', ')})`, async () => {
      const failures: string[] = [];
      for (const credential of credentials) {
        const probes = NAMES.flatMap((name) => probesFor(name, credential));
        sent[surface] = (sent[surface] ?? 0) + probes.length;
        failures.push(...(await sweep(probes, credential)));
      }
      assert.deepEqual(failures.slice(0, 40), [], `${failures.length} of ${sent[surface]} answered 5xx or not as expected`);
    });
  }

  test('the sweep was the size it should be', (t) => {
    const total = Object.values(sent).reduce((a, b) => a + b, 0);
    t.diagnostic(`${total} requests: ${JSON.stringify(sent)}`);
    assert.ok(total > 5_000, `${total} requests`);
  });
});
