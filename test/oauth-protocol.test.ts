// Issue 13's defects 5 to 7 through the gateway with real processes: discovery says what the provider
// does (and only that), errors have the shapes the RFCs give, and RP-initiated logout. Each test failed
// on the code before the fix; see the conformance table of docs/oauth.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as client from 'openid-client';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import {
  apiQuery,
  Browserless,
  codeFlow,
  issuerUrl,
  issueRegistrationToken,
  navigate,
  registerClient,
  startOAuthWorld,
  tokensFor,
  within,
} from './support/oauth.ts';
import type { OAuthWorld, RegisteredClient } from './support/oauth.ts';

const TENANT = 'rs-protocol';
const USERS = {
  admin: 'admin@rs-protocol.test',
  doctor: 'dokter@rs-protocol.test',
  nurse: 'perawat@rs-protocol.test',
  midwife: 'bidan@rs-protocol.test',
};

let world: OAuthWorld;
let app: RegisteredClient;
const doctor = () => browser(USERS.doctor);
const sessions = new Map<string, Browserless>();
const browser = (email: string) => {
  if (!sessions.has(email)) sessions.set(email, new Browserless(world.stack));
  return sessions.get(email)!;
};
const gateway = (path: string) => `${world.stack.gatewayUrl}${path}`;
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const status = async (res: Response) => {
  await res.arrayBuffer();
  return res.status;
};
const metadata = (name: string, extra: Record<string, unknown> = {}) => ({
  client_name: name,
  redirect_uris: [world.redirectUri],
  post_logout_redirect_uris: [world.logoutUri],
  application_type: 'native',
  token_endpoint_auth_method: 'client_secret_post',
  ...extra,
});
const registerRaw = async (body: unknown, authorization?: string) =>
  fetch(gateway('/api/auth/oauth2/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(body),
  });
const tokenCall = (form: Record<string, string>) =>
  fetch(gateway('/api/auth/oauth2/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });

before(async () => {
  world = await startOAuthWorld('oauth_protocol', [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
    { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
    { email: USERS.midwife, tenant: TENANT, role: 'nurse' },
  ]);
  app = await registerClient(world.stack, await issueRegistrationToken(world.stack, USERS.admin), metadata('Aplikasi Uji'));
});

after(async () => {
  await world?.stop();
});

describe('5. discovery tells the truth', () => {
  test('auth methods include none; what is not offered is not advertised', async () => {
    const issuer = issuerUrl(world.stack).href;
    for (const path of ['/api/auth/.well-known/openid-configuration', '/.well-known/openid-configuration/api/auth']) {
      const doc = await json(await fetch(gateway(path)));
      assert.equal(doc.issuer, issuer, path);
      assert.deepEqual(
        doc.token_endpoint_auth_methods_supported,
        ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
        path,
      );
      assert.deepEqual(doc.token_endpoint_auth_signing_alg_values_supported, ['RS384', 'ES384'], path);
      assert.ok((doc.grant_types_supported as string[]).includes('client_credentials'), path);
      assert.deepEqual(doc.revocation_endpoint_auth_methods_supported, ['none', 'client_secret_basic', 'client_secret_post'], path);
      assert.deepEqual(doc.introspection_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post'], path);
      for (const absent of ['backchannel_logout_supported', 'revocation_endpoint_auth_signing_alg_values_supported'])
        assert.equal(doc[absent], undefined, `${absent} at ${path}`);
      assert.equal(doc.claims_parameter_supported, false);
      assert.deepEqual(doc.prompt_values_supported, ['none', 'login', 'consent']);
    }
  });

  test('RFC 8414 §3.1 paths for an issuer with a path; the root documents, whose issuer would not match, are absent', async () => {
    const issuer = issuerUrl(world.stack).href;
    assert.equal((await json(await fetch(gateway('/.well-known/oauth-authorization-server/api/auth')))).issuer, issuer);
    assert.equal((await json(await fetch(gateway('/api/auth/.well-known/oauth-authorization-server')))).issuer, issuer);
    assert.equal(await status(await fetch(gateway('/.well-known/oauth-authorization-server'))), 404);
    assert.equal(await status(await fetch(gateway('/.well-known/openid-configuration'))), 404);
    const resource = await json(await fetch(gateway('/.well-known/oauth-protected-resource/api')));
    assert.equal(resource.resource, `${world.stack.publicUrl}/api`);
    assert.equal(await status(await fetch(gateway('/.well-known/oauth-protected-resource'))), 404);
  });

  test('registration refuses what is not advertised: back-channel logout, private_key_jwt outside a backend service', async () => {
    for (const extra of [
      { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } },
      { backchannel_logout_uri: 'https://rp.example/logout' },
    ]) {
      const res = await registerRaw(metadata('Tidak', extra), `Bearer ${await issueRegistrationToken(world.stack, USERS.admin)}`);
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal((await json(res)).error, 'invalid_client_metadata');
    }
  });

  test('a public client (none) revokes its own refresh token', async () => {
    const pub = await registerClient(
      world.stack,
      await issueRegistrationToken(world.stack, USERS.admin),
      metadata('Publik', { token_endpoint_auth_method: 'none' }),
    );
    const tokens = await tokensFor(world.stack, world.smtp, pub, browser(USERS.nurse), USERS.nurse);
    await client.tokenRevocation(pub.config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
    await assert.rejects(
      client.refreshTokenGrant(pub.config, tokens.refresh_token!),
      (err: client.ResponseBodyError) => err.error === 'invalid_grant',
    );
  });

  test('prompt=none, login and consent do what OIDC Core §3.1.2.1 says', async () => {
    const stranger = new Browserless(world.stack);
    const none = await codeFlow(app.config, world.redirectUri, 'openid simrs:read', { prompt: 'none' });
    const refused = await navigate(stranger, none.url.toString());
    assert.equal(refused.next?.searchParams.get('error'), 'login_required', String(refused.next));
    assert.equal(refused.next?.searchParams.get('state'), none.state);

    await tokensFor(world.stack, world.smtp, app, doctor(), USERS.doctor, 'openid simrs:read');
    const silent = await codeFlow(app.config, world.redirectUri, 'openid simrs:read', { prompt: 'none' });
    const answered = await navigate(doctor(), silent.url.toString());
    assert.ok(answered.next?.searchParams.get('code'), `prompt=none with a session and consent: a code (${String(answered.next)})`);
    const login = await codeFlow(app.config, world.redirectUri, 'openid simrs:read', { prompt: 'login' });
    assert.equal((await navigate(doctor(), login.url.toString())).next?.pathname, DASHBOARD.signIn);
    const consent = await codeFlow(app.config, world.redirectUri, 'openid simrs:read', { prompt: 'consent' });
    assert.equal((await navigate(doctor(), consent.url.toString())).next?.pathname, DASHBOARD.consent);
  });
});

describe('6. error shapes', () => {
  test('registration without a token: 401 with error (RFC 7591 §3.2.2, RFC 6750 §3)', async () => {
    const res = await registerRaw(metadata('Tanpa token'));
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await json(res)).error, 'invalid_token');
  });

  test('a wrong code_verifier: 400 invalid_grant (RFC 7636 §4.6)', async () => {
    const flow = await codeFlow(app.config, world.redirectUri, 'openid simrs:read');
    const { next } = await navigate(doctor(), flow.url.toString());
    const consented = next!;
    assert.ok(consented.searchParams.get('code'), 'consent was remembered');
    const res = await tokenCall({
      grant_type: 'authorization_code',
      code: consented.searchParams.get('code')!,
      redirect_uri: world.redirectUri,
      code_verifier: client.randomPKCECodeVerifier(),
      client_id: app.clientId,
      client_secret: app.clientSecret!,
    });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).error, 'invalid_grant');
  });

  test('an API call without a token: 401 with WWW-Authenticate: Bearer (RFC 6750 §3)', async () => {
    const res = await fetch(gateway('/trpc/pasien.list?input=%7B%22limit%22%3A1%7D'));
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /^Bearer realm="simrs", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api"$/,
    );
    await res.arrayBuffer();
  });

  test('client authentication before the grant: a wrong secret is invalid_client whether the refresh token exists or not', async () => {
    const tokens = await tokensFor(world.stack, world.smtp, app, doctor(), USERS.doctor);
    const basic = `Basic ${Buffer.from(`${app.clientId}:wrong`).toString('base64')}`;
    for (const refreshToken of [tokens.refresh_token!, 'no-such-refresh-token']) {
      // In the body (RFC 6749 §5.2: 400), and in the Authorization header (401 with a challenge).
      const post = await tokenCall({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.clientId,
        client_secret: 'wrong',
      });
      assert.equal(post.status, 400, refreshToken);
      assert.equal((await json(post)).error, 'invalid_client');
      const header = await fetch(gateway('/api/auth/oauth2/token'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
      });
      assert.equal(header.status, 401, refreshToken);
      assert.equal((await json(header)).error, 'invalid_client');
    }
    await client.refreshTokenGrant(app.config, tokens.refresh_token!);
  });

  test('the device code endpoint with an empty body: a plain error_description', async () => {
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', ''],
      ['application/json', ''],
      ['application/json', '{}'],
      [undefined, undefined],
    ]) {
      const res = await fetch(gateway('/api/auth/device/code'), { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
      assert.equal(res.status, 400, `${type} ${body}`);
      assert.deepEqual(await json(res), { error: 'invalid_request', error_description: 'client_id is required' }, `${type} ${body}`);
    }
  });
});

describe('7. RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0)', () => {
  test('post_logout_redirect_uri registered and matched exactly, state echoed, the session ended at the gateway at once', async () => {
    const midwife = browser(USERS.midwife);
    const tokens = await tokensFor(world.stack, world.smtp, app, midwife, USERS.midwife, 'openid simrs:read');
    const withCookie = () => midwife.fetch('/trpc/pasien.list?input=%7B%22limit%22%3A1%7D');
    assert.equal(await status(await withCookie()), 200);

    const elsewhere = client.buildEndSessionUrl(app.config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: `${world.logoutUri}/other`,
      state: 's1',
    });
    const refused = await midwife.fetch(elsewhere.toString());
    assert.equal(refused.status, 400);
    assert.equal((await json(refused)).error, 'invalid_request');
    assert.equal(await status(await withCookie()), 200, 'a refused logout ends nothing');

    const url = client.buildEndSessionUrl(app.config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: world.logoutUri,
      state: 's2',
    });
    assert.equal((await navigate(midwife, url.toString())).next?.href, `${world.logoutUri}?state=s2`);
    assert.ok((await within(1000, async () => (await status(await withCookie())) === 401)) >= 0, 'the cookie is refused at the gateway');
    assert.equal(await (await midwife.fetch('/api/auth/get-session')).text(), 'null');
    assert.equal(await status(await apiQuery(world.stack, tokens.access_token)), 200, 'OAuth grants are not browser sessions');
  });

  test('without a redirect: a logged-out page, not `null`', async () => {
    const nurse = browser(USERS.nurse);
    const tokens = await tokensFor(world.stack, world.smtp, app, nurse, USERS.nurse, 'openid simrs:read');
    const res = await nurse.fetch(client.buildEndSessionUrl(app.config, { id_token_hint: tokens.id_token! }).toString());
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await res.text(), /Logged out/);
  });
});
