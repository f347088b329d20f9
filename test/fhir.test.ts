// Issue 17's acceptance through the whole stack: an existing FHIR client library (fhir-kit-client)
// drives search with paging, create, conditional create, update with a stale If-Match (412), read and
// delete through the gateway with a bearer token from the real OAuth flow; another hospital finds
// nothing; scopes and roles refuse with OperationOutcomes; SMART App Launch discovery, SMART scopes
// granted by the authorization server (in plain words on the consent page) and honoured by records.
// Every FHIR body here is validated against the official R4 definitions (@medplum/core).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Client } from 'fhir-kit-client';
import type { FhirResource } from 'fhir-kit-client';
import { assertValidFhir } from '@simrs/platform/testing/fhir-validation';
import { freePort, testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { makeNik } from '../services/records/src/pasien/index.ts';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { authorizeWithFetch, Browserless, codeFlow, issueRegistrationToken, registerClient, tokensFor } from './support/oauth.ts';
import type { RegisteredClient } from './support/oauth.ts';
import { seedUsers } from './support/users.ts';
import * as oidc from 'openid-client';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TENANT = 'rs-fhir';
const USERS = { admin: 'admin@rs-fhir.test', nurse: 'perawat@rs-fhir.test', otherAdmin: 'admin@rs-lain.test' };
const NIK = 'https://fhir.kemkes.go.id/id/nik';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let callbackServer: Server;
let redirectUri: string;
let base: string;
const browsers = new Map<string, Browserless>();
const browserFor = (email: string) => browsers.get(email) ?? (browsers.set(email, new Browserless(stack)), browsers.get(email)!);

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  const port = await freePort();
  redirectUri = `http://127.0.0.1:${port}/callback`;
  callbackServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('callback'));
  await new Promise<void>((resolve) => callbackServer.listen(port, '127.0.0.1', resolve));
  stack = await startStack({ postgresUrl: testServerUrl, dbPrefix: `t_fhir_${Date.now()}_`, redisUrl: redis.url, smtpUrl: smtp.url });
  await seedUsers(stack, [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
    { email: USERS.otherAdmin, tenant: 'rs-lain', role: 'tenant_admin' },
  ]);
  base = `${stack.gatewayUrl}/api/v1/fhir`;
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop(), new Promise((r) => callbackServer?.close(r))]);
});

/** A client registered by `admin` (write allowed or not), and a user's access token for `scope`. */
async function accessToken(admin: string, email: string, scope: string, allowWrite = true, clientScope?: string): Promise<string> {
  const iat = await issueRegistrationToken(stack, admin, allowWrite);
  const app = await registerClient(stack, iat, {
    client_name: `FHIR app ${scope}`,
    redirect_uris: [redirectUri],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_post',
    ...(clientScope ? { scope: clientScope } : {}),
  });
  return (await tokensFor(stack, smtp, app, browserFor(email), email, scope)).access_token;
}

/** fhir-kit-client at the gateway's FHIR base (Bundle links name PUBLIC_URL, which is this gateway too). */
function fhirClient(token?: string): Client {
  return new Client({ baseUrl: base, ...(token ? { bearerToken: token } : {}) });
}

/** The response behind a fhir-kit-client result (headers) and the result itself, validated. */
const checked = <T extends FhirResource>(resource: T, what: string): T & Json => assertValidFhir(resource, what) as T & Json;
const responseOf = (resource: FhirResource) => (resource as unknown as { __response: Response }).__response;

/** The HTTP status and OperationOutcome of a refused fhir-kit-client call. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; issue: Json }> {
  try {
    await call;
  } catch (err) {
    const response = (err as { response?: { status: number; data: Json } }).response;
    if (!response) throw err;
    assertValidFhir(response.data, `error ${response.status}`);
    assert.equal(response.data.resourceType, 'OperationOutcome');
    return { status: response.status, issue: response.data.issue[0] as Json };
  }
  throw new Error('expected a refusal');
}

let serial = 0;
function patient(nama: string): Json {
  const n = ++serial;
  const tanggalLahir = `19${String(60 + (n % 39))}-0${1 + (n % 9)}-1${n % 9}`;
  const female = n % 2 === 0;
  return {
    resourceType: 'Patient',
    identifier: [
      {
        use: 'official',
        system: NIK,
        value: makeNik({ province: '32', regency: 73, district: 1 + (n % 30), tanggalLahir, jenisKelamin: female ? 'P' : 'L', serial: n }),
      },
    ],
    name: [{ use: 'official', text: nama }],
    gender: female ? 'female' : 'male',
    birthDate: tanggalLahir,
    address: [{ use: 'home', line: [`Jl. Asia Afrika No. ${n}`], city: 'Kota Bandung', state: 'Jawa Barat', country: 'ID' }],
    extension: [{ url: 'https://fhir.kemkes.go.id/r4/StructureDefinition/birthPlace', valueAddress: { city: 'Bandung' } }],
  };
}

describe('FHIR R4 through the gateway with fhir-kit-client', () => {
  let fhir: Client;
  const created: Json[] = [];

  before(async () => {
    fhir = fhirClient(await accessToken(USERS.admin, USERS.admin, 'openid simrs:read simrs:write'));
  });

  test('SMART discovery and the CapabilityStatement are public and name the authorization server', async () => {
    const anonymous = fhirClient();
    const smart = await anonymous.smartAuthMetadata();
    assert.equal(smart.authorizeUrl?.toString(), `${stack.publicUrl}/api/auth/oauth2/authorize`);
    assert.equal(smart.tokenUrl?.toString(), `${stack.publicUrl}/api/auth/oauth2/token`);
    const cs = checked(await anonymous.capabilityStatement(), 'CapabilityStatement');
    assert.equal(cs.rest[0].resource[0].type, 'Patient');
    assert.equal(cs.rest[0].security.service[0].coding[0].code, 'SMART-on-FHIR');
  });

  test('create, then search with paging forwards and back', async () => {
    for (let i = 0; i < 12; i++) {
      const p = checked(
        await fhir.create({ resourceType: 'Patient', body: patient(`Kusnadi ${['Wijaya', 'Halim', 'Tan'][i % 3]!}`) as never }),
        'created',
      );
      assert.equal(responseOf(p).status, 201);
      assert.match(responseOf(p).headers.get('location') ?? '', /\/api\/v1\/fhir\/Patient\/[0-9a-f-]+\/_history\/1$/);
      created.push(p);
    }
    const seen: string[][] = [];
    let page: Json | undefined = checked(
      await fhir.search({ resourceType: 'Patient', searchParams: { name: 'kusnadi', _count: 5 } }),
      'page 1',
    );
    while (page) {
      seen.push((page.entry as Json[]).map((e) => e.resource.id as string));
      const next = fhir.nextPage({ bundle: page as never });
      page = next ? checked(await next, `page ${seen.length + 1}`) : undefined;
    }
    assert.deepEqual(
      seen.map((s) => s.length),
      [5, 5, 2],
    );
    assert.deepEqual(new Set(seen.flat()), new Set(created.map((p) => p.id as string)));
    const third = checked(
      await fhir.nextPage({
        bundle: checked(
          await fhir.nextPage({
            bundle: (await fhir.search({ resourceType: 'Patient', searchParams: { name: 'kusnadi', _count: 5 } })) as never,
          })!,
          'p2',
        ) as never,
      })!,
      'p3',
    );
    const back = checked(await fhir.prevPage({ bundle: third as never })!, 'back to 2');
    assert.deepEqual(
      (back.entry as Json[]).map((e) => e.resource.id),
      seen[1],
    );
    const byNik = checked(
      await fhir.search({ resourceType: 'Patient', searchParams: { identifier: `${NIK}|${created[0]!.identifier[0].value as string}` } }),
      'by NIK',
    );
    assert.deepEqual(
      (byNik.entry as Json[]).map((e) => e.resource.id),
      [created[0]!.id],
    );
  });

  test('conditional create answers the existing patient; a new NIK creates', async () => {
    const existing = created[1]!;
    const body = { ...existing, id: undefined, meta: undefined, identifier: [existing.identifier[0]] };
    const condition = { headers: { 'If-None-Exist': `identifier=${NIK}|${existing.identifier[0].value as string}` } };
    const found = checked(await fhir.create({ resourceType: 'Patient', body: body as never, options: condition }), 'found');
    assert.equal(responseOf(found).status, 200);
    assert.equal(found.id, existing.id);
    const fresh = patient('Kusnadi Baru');
    const made = checked(
      await fhir.create({
        resourceType: 'Patient',
        body: fresh as never,
        options: { headers: { 'If-None-Exist': `identifier=${NIK}|${fresh.identifier[0].value as string}` } },
      }),
      'made',
    );
    assert.equal(responseOf(made).status, 201);
  });

  test('read, update with If-Match (a stale version is 412), delete (then read is 410)', async () => {
    const p = created[2]!;
    const read = checked(await fhir.read({ resourceType: 'Patient', id: p.id as string }), 'read');
    assert.deepEqual(read, p);
    assert.equal(responseOf(read).headers.get('etag'), 'W/"1"');
    const changed = { ...read, telecom: [{ system: 'phone', value: '+6281300001111', use: 'mobile' }] };
    const updated = checked(
      await fhir.update({
        resourceType: 'Patient',
        id: p.id as string,
        body: changed as never,
        options: { headers: { 'If-Match': 'W/"1"' } },
      }),
      'updated',
    );
    assert.equal(updated.meta.versionId, '2');
    const stale = await refusal(
      fhir.update({
        resourceType: 'Patient',
        id: p.id as string,
        body: changed as never,
        options: { headers: { 'If-Match': 'W/"1"' } },
      }),
    );
    assert.equal(stale.status, 412);
    assert.equal(stale.issue.code, 'conflict');
    checked(await fhir.vread({ resourceType: 'Patient', id: p.id as string, version: '1' }), 'vread 1');
    checked(await fhir.history({ resourceType: 'Patient', id: p.id as string }), 'history');
    const deleted = checked(await fhir.delete({ resourceType: 'Patient', id: p.id as string }), 'deleted');
    assert.equal(deleted.resourceType, 'OperationOutcome');
    const gone = await refusal(fhir.read({ resourceType: 'Patient', id: p.id as string }));
    assert.equal(gone.status, 410);
  });

  test("another hospital's token finds none of these patients, by id or NIK", async () => {
    const other = fhirClient(await accessToken(USERS.otherAdmin, USERS.otherAdmin, 'openid simrs:read simrs:write'));
    const p = created[3]!;
    assert.equal((await refusal(other.read({ resourceType: 'Patient', id: p.id as string }))).status, 404);
    assert.equal((await refusal(other.delete({ resourceType: 'Patient', id: p.id as string }))).status, 404);
    const byNik = checked(
      await other.search({ resourceType: 'Patient', searchParams: { identifier: `${NIK}|${p.identifier[0].value as string}` } }),
      'other by NIK',
    );
    assert.deepEqual(byNik.entry, []);
    const byName = checked(await other.search({ resourceType: 'Patient', searchParams: { name: 'kusnadi' } }), 'other by name');
    assert.deepEqual(byName.entry, []);
  });

  test('scopes and roles refuse as OperationOutcomes', async () => {
    const readOnly = fhirClient(await accessToken(USERS.admin, USERS.admin, 'openid simrs:read', false));
    const noWrite = await refusal(readOnly.create({ resourceType: 'Patient', body: patient('Tidak Boleh') as never }));
    assert.equal(noWrite.status, 403);
    assert.match(noWrite.issue.diagnostics as string, /simrs:write/);
    const nurse = fhirClient(await accessToken(USERS.admin, USERS.nurse, 'openid simrs:read simrs:write'));
    checked(await nurse.search({ resourceType: 'Patient', searchParams: { name: 'kusnadi' } }), 'nurse search');
    const role = await refusal(nurse.delete({ resourceType: 'Patient', id: created[4]!.id as string }));
    assert.equal(role.status, 403);
    assert.match(role.issue.diagnostics as string, /role nurse may not archive a patient/);
    assert.equal((await refusal(fhirClient().search({ resourceType: 'Patient' }))).status, 401);
    // A token the gateway refuses itself is an OperationOutcome too under the FHIR base (elsewhere: the envelope).
    const forged = await fetch(`${base}/Patient`, { headers: { authorization: 'Bearer not.a.token' } });
    assert.equal(forged.status, 401);
    assert.match(forged.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
    assert.match(forged.headers.get('content-type') ?? '', /^application\/fhir\+json/);
    const outcome = assertValidFhir((await forged.json()) as Json, 'gateway 401');
    assert.equal(outcome.resourceType, 'OperationOutcome');
    assert.equal(outcome.issue[0].code, 'login');
  });
});

describe('SMART App Launch v2 scopes', () => {
  test('the authorization server grants SMART scopes within the administrator grant, explains them, and records honours them', async () => {
    // A read-only registration token allows reading and searching patients, never writing them.
    const readIat = await issueRegistrationToken(stack, USERS.admin, false);
    const meta = {
      client_name: 'SMART viewer',
      redirect_uris: [redirectUri],
      application_type: 'native' as const,
      token_endpoint_auth_method: 'client_secret_post',
    };
    await assert.rejects(
      registerClient(stack, readIat, { ...meta, scope: 'openid user/Patient.cruds' }),
      (err: { cause?: { error?: string; error_description?: string } }) =>
        err.cause?.error === 'invalid_client_metadata' && /user\/Patient\.cruds/.test(err.cause.error_description ?? ''),
    );
    const viewer: RegisteredClient = await registerClient(stack, await issueRegistrationToken(stack, USERS.admin, false), {
      ...meta,
      scope: 'openid offline_access user/Patient.rs patient/Patient.rs',
    });
    const flow = await codeFlow(viewer.config, redirectUri, 'openid user/Patient.rs');
    const { callback, consent } = await authorizeWithFetch(stack, smtp, browserFor(USERS.nurse), flow.url, { email: USERS.nurse });
    // The consent page's plain words for SMART scopes are checked in Chromium (smart-launch.test.ts).
    assert.deepEqual(consent?.scopes, ['openid', 'user/Patient.rs'], 'the consent page was asked about the SMART scope');
    const tokens = await oidc.authorizationCodeGrant(viewer.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    assert.equal(tokens.scope, 'openid user/Patient.rs');
    const smart = fhirClient(tokens.access_token);
    const page = checked(await smart.search({ resourceType: 'Patient', searchParams: { name: 'kusnadi', _count: 3 } }), 'SMART search');
    assert.equal((page.entry as Json[]).length, 3);
    checked(await smart.read({ resourceType: 'Patient', id: (page.entry as Json[])[0]!.resource.id as string }), 'SMART read');
    const refused = await refusal(smart.create({ resourceType: 'Patient', body: patient('Tidak Boleh Juga') as never }));
    assert.equal(refused.status, 403);
    // The seed's scopes keep working beside them: the same client may not use what it was not given.
    const tRpc = await fetch(`${stack.gatewayUrl}/trpc/audit.list`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(tRpc.status, 403, 'no SMART scope reaches the audit trail');
  });
});
