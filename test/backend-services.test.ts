// SMART Backend Services through the gateway, with two identity replicas behind a balancer: a backend
// service registered with its public keys obtains a token for itself (client credentials) with a
// client assertion that Authlib (Python) signs with its own RFC 7523 code (test/support/authlib_client.py);
// the token reads the FHIR API for the client's hospital. Every assertion rule refuses with
// invalid_client: replay (twice in a row, and at both replicas at once), expired, too far ahead,
// another audience, alg none, HS256, a jku that is not the registered JWKS URL, and a secret instead.
// Spent assertions are kept while they could be replayed and removed once past it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { authlib } from './support/authlib.ts';
import type { BackendKeys } from './support/authlib.ts';
import { issueRegistrationToken } from './support/oauth.ts';
import { startReplicatedStack } from './support/replicas.ts';
import type { ReplicatedStack } from './support/replicas.ts';
import { seedUsers } from './support/users.ts';

const TENANT = 'rs-sistem';
const ADMIN = 'admin@rs-sistem.test';
const STEP_TIMEOUT_MS = 20_000;
const SCOPE = 'system/Patient.rs system/Observation.rs';

let redis: RedisServer;
let smtp: SmtpPeer;
let replicated: ReplicatedStack;

interface Backend {
  clientId: string;
  keys: BackendKeys;
  alg: 'RS384' | 'ES384';
}
let rsa: Backend;

const publicUrl = () => replicated.stack.publicUrl;
const tokenEndpoint = () => `${publicUrl()}/api/auth/oauth2/token`;

async function register(metadata: Record<string, unknown>): Promise<Response> {
  return fetch(`${publicUrl()}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await issueRegistrationToken(replicated.stack, ADMIN)}` },
    body: JSON.stringify(metadata),
  });
}

async function registerBackend(alg: Backend['alg']): Promise<Backend> {
  const keys = await authlib<BackendKeys>('backend-keys', { alg });
  const res = await register({
    client_name: `Gudang data ${alg}`,
    token_endpoint_auth_method: 'private_key_jwt',
    grant_types: ['client_credentials'],
    jwks: keys.jwks,
    scope: SCOPE,
  });
  const body = (await res.json()) as { client_id: string; client_secret?: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.equal(body.client_secret, undefined, 'a key-based client has no secret');
  return { clientId: body.client_id, keys, alg };
}

/** The administrator's CLI registers the backend service with a JWKS file. */
async function registerWithCli(alg: Backend['alg']): Promise<Backend> {
  const keys = await authlib<BackendKeys>('backend-keys', { alg });
  const dir = await mkdtemp(join(tmpdir(), 'simrs-jwks-'));
  try {
    const file = join(dir, 'jwks.json');
    await writeFile(file, JSON.stringify(keys.jwks));
    const cli = 'services/identity/src/tenants/cli.ts';
    const args = [cli, 'register-backend-service', '--as', ADMIN, '--name', `Registri ${alg}`, '--scope', SCOPE, '--jwks-file', file];
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      env: { ...process.env, IDENTITY_GRPC: replicated.stack.urls.identityGrpc },
      timeout: STEP_TIMEOUT_MS,
    });
    const clientId = /client id (\S+) /.exec(stdout)?.[1];
    assert.ok(clientId, stdout);
    return { clientId, keys, alg };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An assertion Authlib signs for `backend`, with claims or header changed as a case needs. */
async function assertion(backend: Backend, change: Record<string, unknown> = {}): Promise<string> {
  return authlib<string>('backend-assertion', {
    client_id: backend.clientId,
    token_endpoint: tokenEndpoint(),
    private: backend.keys.private,
    alg: backend.alg,
    ...change,
  });
}

/** The client-credentials request carrying `signed`, at `endpoint` (the gateway's, or one identity replica's). */
async function grant(signed: string, endpoint = tokenEndpoint()): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'system/Patient.rs',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: signed,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  replicated = await startReplicatedStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_backend_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    // Both replicas sweep spent assertions every second, so that a test sees it happen.
    identityEnv: { EXPIRED_ROWS_SWEEP_SECONDS: '1' },
    gatewayEnv: {},
  });
  await seedUsers(replicated.stack, [{ email: ADMIN, tenant: TENANT, role: 'tenant_admin' }]);
  rsa = await registerBackend('RS384');
});

after(async () => {
  await replicated?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

describe('SMART Backend Services', () => {
  test('discovery and smart-configuration advertise private_key_jwt, client_credentials, RS384 and ES384, system/ scopes', async () => {
    const oauth = (await (await fetch(`${publicUrl()}/.well-known/oauth-authorization-server/api/auth`)).json()) as Record<
      string,
      string[]
    >;
    assert.ok(oauth.token_endpoint_auth_methods_supported!.includes('private_key_jwt'));
    assert.deepEqual(oauth.token_endpoint_auth_signing_alg_values_supported, ['RS384', 'ES384']);
    assert.ok(oauth.grant_types_supported!.includes('client_credentials'));
    const smart = (await (await fetch(`${publicUrl()}/api/v1/fhir/.well-known/smart-configuration`)).json()) as Record<string, string[]>;
    assert.ok(smart.capabilities!.includes('client-confidential-asymmetric'));
    assert.ok(smart.token_endpoint_auth_methods_supported!.includes('private_key_jwt'));
    assert.deepEqual(smart.token_endpoint_auth_signing_alg_values_supported, ['RS384', 'ES384']);
    assert.ok(smart.grant_types_supported!.includes('client_credentials'));
    assert.ok(smart.scopes_supported!.includes('system/Patient.rs') && smart.scopes_supported!.includes('system/*.rs'));
  });

  test('Authlib completes the grant with its own private_key_jwt (RS384; ES384 registered with the CLI); the token lives at most 300 s and reads the FHIR API', async () => {
    const ec = await registerWithCli('ES384');
    for (const backend of [rsa, ec]) {
      const result = await authlib<{ token?: Record<string, unknown>; error?: string }>('backend-grant', {
        client_id: backend.clientId,
        token_endpoint: tokenEndpoint(),
        private: backend.keys.private,
        alg: backend.alg,
        scope: SCOPE,
      });
      assert.equal(result.error, undefined, JSON.stringify(result));
      const token = result.token!;
      assert.equal(token.refresh_token, undefined);
      const claims = decodeJwt(token.access_token as string);
      assert.ok(claims.exp! - claims.iat! <= 300, `lifetime ${claims.exp! - claims.iat!}`);
      assert.equal(claims.sub, backend.clientId);
      assert.equal(claims.scope, SCOPE);
      assert.equal(claims['https://simrs.id/tenant'], TENANT);
      const fhir = await fetch(`${publicUrl()}/api/v1/fhir/Patient?_count=1`, {
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      assert.equal(fhir.status, 200, await fhir.clone().text());
      assert.equal(((await fhir.json()) as { resourceType: string }).resourceType, 'Bundle');
    }
  });

  test('the token kicks off a Bulk Data export through the gateway and polls it to its manifest', async () => {
    const result = await authlib<{ token: { access_token: string } }>('backend-grant', {
      client_id: rsa.clientId,
      token_endpoint: tokenEndpoint(),
      private: rsa.keys.private,
      alg: rsa.alg,
      scope: SCOPE,
    });
    const auth = { authorization: `Bearer ${result.token.access_token}`, accept: 'application/fhir+json' };
    const kickOff = await fetch(`${publicUrl()}/api/v1/fhir/$export?_type=Patient`, { headers: { ...auth, prefer: 'respond-async' } });
    assert.equal(kickOff.status, 202, await kickOff.text());
    const status = kickOff.headers.get('content-location')!;
    assert.ok(status.startsWith(`${publicUrl()}/api/v1/fhir/`), status);
    let manifest: Response | undefined;
    for (let poll = 0; poll < 60 && manifest?.status !== 200; poll++) {
      manifest = await fetch(status, { headers: auth });
      if (manifest.status !== 200) await new Promise((done) => setTimeout(done, Number(manifest!.headers.get('retry-after') ?? 1) * 1000));
    }
    assert.equal(manifest!.status, 200);
    assert.ok(manifest!.headers.get('expires'));
    const body = (await manifest!.json()) as { requiresAccessToken: boolean; output: unknown[] };
    assert.equal(body.requiresAccessToken, true);
    assert.deepEqual(body.output, [], 'a hospital with no patients yet');
  });

  test('one assertion is good once: twice in a row, and at both identity replicas at once', async () => {
    const once = await assertion(rsa);
    assert.equal((await grant(once)).status, 200);
    const again = await grant(once);
    assert.equal(again.body.error, 'invalid_client', JSON.stringify(again.body));

    for (let round = 0; round < 3; round++) {
      const shared = await assertion(rsa);
      const answers = await Promise.all(replicated.identities.map((identity) => grant(shared, `${identity}/api/auth/oauth2/token`)));
      assert.equal(answers.filter((a) => a.status === 200).length, 1, JSON.stringify(answers.map((a) => a.body)));
      assert.ok(answers.some((a) => a.body.error === 'invalid_client'));
    }
  });

  test('a spent assertion is kept while it could be replayed, and removed five minutes after its expiry', async () => {
    const spent = await assertion(rsa);
    assert.equal((await grant(spent)).status, 200);
    const db = new pg.Client({ connectionString: replicated.stack.databases.identity });
    await db.connect();
    try {
      const ids = async (where: string, values: unknown[] = []) =>
        (await db.query<{ id: string }>(`select id from "oauthClientAssertion" where ${where} order by id`, values)).rows.map((r) => r.id);
      // The assertions spent so far are all within their lifetime (the one above among them).
      const live = await ids('"expiresAt" > now()');
      assert.ok(live.length >= 1);
      // Rows as a backend service leaves them: long expired, and expired a minute ago (within the grace
      // that replicas' clocks are allowed); in one statement, so that no sweep sees one without the other.
      await db.query(`insert into "oauthClientAssertion" (id, "expiresAt")
        values ('spent-long-ago', now() - interval '10 minutes'), ('spent-a-minute-ago', now() - interval '1 minute')`);
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while ((await ids(`id = 'spent-long-ago'`)).length > 0) {
        assert.ok(Date.now() < deadline, 'the sweep did not remove an assertion expired ten minutes ago');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.deepEqual(await ids(`id = 'spent-a-minute-ago'`), ['spent-a-minute-ago'], 'an assertion within the grace stays');
      assert.deepEqual(await ids('id = any($1)', [live]), live, 'assertions within their lifetime stay');
      const replay = await grant(spent);
      assert.equal(replay.body.error, 'invalid_client', JSON.stringify(replay.body));
    } finally {
      await db.end();
    }
  });

  test('expired, too far ahead, another audience, alg none, HS256, a foreign jku: each is invalid_client', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, Record<string, unknown>> = {
      expired: { claims: { iat: now - 200, exp: now - 60 } },
      'too far ahead': { claims: { exp: now + 3600 } },
      'another audience': { claims: { aud: `${publicUrl()}/api/auth` } },
      'alg none': { alg: 'none' },
      HS256: { alg: 'HS256', secret: 'a-shared-secret-the-server-never-registered' },
      'foreign jku': { header: { jku: 'https://attacker.example/jwks.json' } },
    };
    for (const [name, change] of Object.entries(cases)) {
      const refused = await grant(await assertion(rsa, change));
      assert.equal(refused.body.error, 'invalid_client', `${name}: ${JSON.stringify(refused.body)}`);
      assert.ok(refused.status === 400 || refused.status === 401, name);
    }
  });

  test('a key-based client cannot fall back to a secret', async () => {
    const res = await fetch(tokenEndpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: rsa.clientId,
        client_secret: 'guessed',
        scope: 'system/Patient.rs',
      }),
    });
    assert.equal(((await res.json()) as { error: string }).error, 'invalid_client');
  });

  test('registration: system/ scopes only for a key-based client-credentials client, and private_key_jwt only for one', async () => {
    const keys = rsa.keys.jwks;
    for (const metadata of [
      { token_endpoint_auth_method: 'client_secret_post', grant_types: ['client_credentials'], scope: SCOPE },
      {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: keys,
        grant_types: ['authorization_code'],
        redirect_uris: ['https://a.example/cb'],
      },
      { token_endpoint_auth_method: 'private_key_jwt', jwks: keys, grant_types: ['client_credentials'], scope: 'user/Patient.rs' },
      { redirect_uris: ['https://a.example/cb'], scope: 'openid system/Patient.rs' },
    ]) {
      const res = await register({ client_name: 'Tidak', ...metadata });
      assert.equal(res.status, 400, JSON.stringify(metadata));
      assert.equal(((await res.json()) as { error: string }).error, 'invalid_client_metadata');
    }
  });
});
