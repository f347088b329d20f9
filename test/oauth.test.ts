// Issue 6's acceptance for the OAuth 2.0 / OIDC provider, through the gateway with real processes: a
// real OIDC client library (openid-client) runs discovery, registration with an initial access token,
// the authorization code flow with PKCE (sign-in by the OTP read from the SMTP peer, consent, in
// Chromium and with fetch), the token call, userinfo, pasien.list with the bearer token, refresh with
// rotation and reuse detection, introspection and revocation. Then everything that must be refused,
// key rotation, and a deactivated user's tokens.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Redis } from 'ioredis';
import * as client from 'openid-client';
import pg from 'pg';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient } from '@simrs/proto/grpc';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { ROLE_CLAIM, TENANT_CLAIM } from '@simrs/contracts/oauth';
import { freePort, testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { launchBrowser } from './support/browser.ts';
import { assertAccessibleOnPhoneAndTablet } from './support/dashboard.ts';
import {
  apiAudience,
  apiQuery,
  authorizeWithFetch,
  Browserless,
  codeFlow,
  consentShown,
  forgeWithIdentityKey,
  issuerUrl,
  issueRegistrationToken,
  navigate,
  registerClient,
  tokensFor,
  within,
} from './support/oauth.ts';
import type { RegisteredClient } from './support/oauth.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { isOtpMail, otpFrom, seedUsers } from './support/users.ts';

const run = promisify(execFile);
const TENANT = 'rs-oauth';
const USERS = {
  admin: 'admin@rs-oauth.test',
  doctor: 'dokter@rs-oauth.test',
  nurse: 'perawat@rs-oauth.test',
  midwife: 'bidan@rs-oauth.test',
  otherAdmin: 'admin@rs-lain.test',
  otherDoctor: 'dokter@rs-lain.test',
};

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let callbackServer: Server;
let redirectUri: string;
/** The confidential client registered with a read-only registration token. */
let app: RegisteredClient;
/** Browsers without a browser: one session per person, reused (OTP sends per address are limited). */
const sessions = new Map<string, Browserless>();
/** Refresh tokens, codes and registration tokens handed out: none may be readable where identity keeps state. */
const issued = new Set<string>();
const browserFor = (email: string) => {
  if (!sessions.has(email)) sessions.set(email, new Browserless(stack));
  return sessions.get(email)!;
};

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  const port = await freePort();
  redirectUri = `http://127.0.0.1:${port}/callback`;
  callbackServer = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`callback ${req.url}`));
  await new Promise<void>((resolve) => callbackServer.listen(port, '127.0.0.1', resolve));
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_oauth_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
  });
  await seedUsers(stack, [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
    { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
    { email: USERS.midwife, tenant: TENANT, role: 'nurse' },
    { email: USERS.otherAdmin, tenant: 'rs-lain', role: 'tenant_admin' },
    { email: USERS.otherDoctor, tenant: 'rs-lain', role: 'doctor' },
  ]);
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop(), new Promise((r) => callbackServer?.close(r))]);
});

const clientMetadata = (name: string, extra: Partial<client.ClientMetadata> = {}): Partial<client.ClientMetadata> => ({
  client_name: name,
  redirect_uris: [redirectUri],
  application_type: 'native',
  token_endpoint_auth_method: 'client_secret_post',
  ...extra,
});

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

/** A refusal at the gateway: 401, the seed's envelope, and an RFC 6750 challenge. */
async function assertRefused(res: Response, what: string): Promise<void> {
  assert.equal(res.status, 401, what);
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/, what);
  const body = (await res.json()) as { error: { message: string; code: number; data: { code: string; httpStatus: number; path: string } } };
  assert.equal(body.error.data.code, 'UNAUTHORIZED', what);
  assert.equal(body.error.data.httpStatus, 401, what);
  assert.equal(body.error.data.path, 'pasien.list', what);
  assert.equal(typeof body.error.message, 'string', what);
}

const status = async (res: Response) => {
  await res.arrayBuffer();
  return res.status;
};

describe('discovery', () => {
  test('the OpenID configuration, RFC 8414 metadata and the JWKS through the gateway', async () => {
    const oidc = await json(await fetch(`${stack.gatewayUrl}/api/auth/.well-known/openid-configuration`));
    const issuer = `${stack.publicUrl}/api/auth`;
    assert.equal(oidc.issuer, issuer);
    for (const [field, path] of [
      ['authorization_endpoint', '/oauth2/authorize'],
      ['token_endpoint', '/oauth2/token'],
      ['userinfo_endpoint', '/oauth2/userinfo'],
      ['registration_endpoint', '/oauth2/register'],
      ['revocation_endpoint', '/oauth2/revoke'],
      ['introspection_endpoint', '/oauth2/introspect'],
      ['end_session_endpoint', '/oauth2/end-session'],
      ['device_authorization_endpoint', '/device/code'],
      ['jwks_uri', '/jwks'],
    ])
      assert.equal(oidc[field!], `${issuer}${path}`, field);
    assert.deepEqual(oidc.code_challenge_methods_supported, ['S256'], 'PKCE S256 only');
    assert.deepEqual(oidc.response_types_supported, ['code']);
    assert.deepEqual(
      new Set(oidc.grant_types_supported as string[]),
      new Set(['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code']),
    );
    assert.ok((oidc.scopes_supported as string[]).includes('simrs:read') && (oidc.scopes_supported as string[]).includes('simrs:write'));

    // RFC 8414: for an issuer with a path, the metadata sits at the root with the path appended.
    const rfc8414 = await json(await fetch(`${stack.gatewayUrl}/.well-known/oauth-authorization-server/api/auth`));
    assert.equal(rfc8414.issuer, issuer);
    assert.equal(rfc8414.token_endpoint, `${issuer}/oauth2/token`);
    const resource = await json(await fetch(`${stack.gatewayUrl}/.well-known/oauth-protected-resource/api`));
    assert.equal(resource.resource, apiAudience(stack));
    assert.deepEqual(resource.authorization_servers, [issuer]);

    const jwks = (await json(await fetch(`${stack.gatewayUrl}/api/auth/jwks`))) as { keys: Array<Record<string, unknown>> };
    assert.ok(jwks.keys.length >= 1);
    for (const key of jwks.keys) {
      assert.ok(['RS256', 'EdDSA', 'ES256'].includes(key.alg as string), String(key.alg));
      assert.equal(typeof key.kid, 'string');
      assert.equal(key.d, undefined, 'no private key material');
    }

    const config = await client.discovery(issuerUrl(stack), 'nobody', undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    assert.equal(config.serverMetadata().issuer, issuer);
  });
});

describe('registration (RFC 7591)', () => {
  const register = (body: unknown, authorization?: string, cookie?: string) =>
    fetch(`${stack.gatewayUrl}/api/auth/oauth2/register`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(authorization ? { authorization } : {}),
        ...(cookie ? { cookie, origin: stack.publicUrl } : {}),
      },
      body: JSON.stringify(body),
    });

  test('refused without an initial access token, and with a made-up one (401)', async () => {
    const none = await register(clientMetadata('Nobody'));
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    await none.arrayBuffer();
    const forged = await register(clientMetadata('Nobody'), 'Bearer simrs_iat_not-a-real-token');
    assert.equal(forged.status, 401);
    assert.equal((await json(forged)).error, 'invalid_token');
  });

  test('with a read-only token: the client belongs to the tenant, default scopes, no simrs:write; the token works once', async () => {
    const token = await issueRegistrationToken(stack, USERS.admin);
    issued.add(token);
    const asksWrite = await register(clientMetadata('Wants write', { scope: 'openid simrs:read simrs:write' }), `Bearer ${token}`);
    assert.equal(asksWrite.status, 400);
    assert.equal((await json(asksWrite)).error, 'invalid_client_metadata');

    // The refused registration did not use the token up.
    app = await registerClient(stack, token, clientMetadata('Aplikasi Rujukan'));
    assert.equal(typeof app.clientSecret, 'string');
    assert.deepEqual((app.metadata.scope as string).split(' ').sort(), ['email', 'offline_access', 'openid', 'profile', 'simrs:read']);
    assert.deepEqual(app.metadata.redirect_uris, [redirectUri]);
    assert.equal(app.metadata.reference_id, TENANT);

    const again = await register(clientMetadata('Second use'), `Bearer ${token}`);
    assert.equal(again.status, 401, 'single use');
    await again.arrayBuffer();
  });

  test('simrs:write only when the administrator grants it; a public client too', async () => {
    const writer = await registerClient(
      stack,
      await issueRegistrationToken(stack, USERS.admin, true),
      clientMetadata('Writer', { scope: 'openid simrs:read simrs:write offline_access' }),
    );
    assert.deepEqual((writer.metadata.scope as string).split(' ').sort(), ['offline_access', 'openid', 'simrs:read', 'simrs:write']);
    const pub = await registerClient(
      stack,
      await issueRegistrationToken(stack, USERS.admin),
      clientMetadata('CLI', { token_endpoint_auth_method: 'none' }),
    );
    assert.equal(pub.clientSecret, undefined);
  });

  test("a tenant administrator's session registers and issues tokens; other roles cannot", async () => {
    const admin = browserFor(USERS.admin);
    await admin.signIn(smtp, USERS.admin);
    const viaSession = await register(
      clientMetadata('Registered by session', { scope: 'openid simrs:read simrs:write' }),
      undefined,
      admin.cookie,
    );
    assert.equal(viaSession.status, 201);
    const created = await json(viaSession);
    assert.equal(created.reference_id, TENANT);
    assert.equal(created.scope, 'openid simrs:read simrs:write');

    const issued = await admin.fetch('/api/auth/tenant/registration-tokens', {
      method: 'POST',
      json: { allowWrite: false, ttlSeconds: 600 },
    });
    assert.equal(issued.status, 200);
    const { token, scopes, tenantId } = (await issued.json()) as { token: string; scopes: string[]; tenantId: string };
    assert.equal(tenantId, TENANT);
    assert.ok(!scopes.includes('simrs:write'));
    assert.equal((await register(clientMetadata('From the API'), `Bearer ${token}`)).status, 201);

    const listed = (await json(await admin.fetch('/api/auth/tenant/oauth-clients'))) as { clients: Array<{ clientId: string }> };
    assert.ok(listed.clients.some((c) => c.clientId === app.clientId));

    const doctor = browserFor(USERS.doctor);
    await doctor.signIn(smtp, USERS.doctor);
    assert.equal(await status(await register(clientMetadata('By a doctor'), undefined, doctor.cookie)), 403);
    assert.equal(await status(await doctor.fetch('/api/auth/tenant/registration-tokens', { method: 'POST', json: {} })), 403);
  });

  test('the CLI issues registration tokens', async () => {
    const { stdout } = await run(
      process.execPath,
      ['services/identity/src/tenants/cli.ts', 'issue-registration-token', '--as', USERS.admin, '--write', '--ttl', '600'],
      {
        env: { ...process.env, IDENTITY_GRPC: stack.urls.identityGrpc },
      },
    );
    const token = /simrs_iat_\S+/.exec(stdout)?.[0];
    assert.ok(token, stdout);
    assert.match(stdout, /simrs:write/);
    const registered = await registerClient(stack, token, clientMetadata('From the CLI', { scope: 'openid simrs:write' }));
    assert.equal(registered.metadata.scope, 'openid simrs:write');
  });
});

describe('authorization code flow with PKCE', () => {
  let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

  test('in Chromium: authorize, sign in by e-mail code, consent, token; userinfo; pasien.list with the bearer token', async () => {
    const flow = await codeFlow(app.config, redirectUri, 'openid profile email simrs:read offline_access');
    const { browser, close } = await launchBrowser();
    let callback: URL;
    try {
      const page = await (await browser.newContext({ baseURL: stack.publicUrl })).newPage();
      await page.goto(flow.url.toString());
      // The dashboard's sign-in page, as the OAuth provider's login page, then its consent page.
      await page.waitForURL('**/masuk?**');
      const since = smtp.messages.length;
      await page.fill('#email', USERS.doctor);
      await page.click('#send-otp');
      const mail = await smtp.waitForMail(USERS.doctor, since, isOtpMail);
      await page.fill('#otp', otpFrom(mail.text));
      await page.click('#verify-otp');
      await page.waitForURL('**/izin?**');
      await page.locator('h1', { hasText: 'Aplikasi Rujukan' }).waitFor();
      assert.ok((await page.textContent('main'))?.includes(`Masuk sebagai ${USERS.doctor} di `), 'who, and at which hospital');
      const scopes = await page.locator('#scope-list li').evaluateAll((items) => items.map((li) => li.getAttribute('data-scope')));
      assert.deepEqual(scopes, ['openid', 'profile', 'email', 'simrs:read', 'offline_access']);
      await assertAccessibleOnPhoneAndTablet(page, 'consent');
      // Allowed by keyboard.
      await page.locator('#approve').focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.toString().startsWith(redirectUri));
      callback = new URL(page.url());
    } finally {
      await close();
    }
    assert.equal(callback.searchParams.get('iss'), `${stack.publicUrl}/api/auth`);
    issued.add(callback.searchParams.get('code')!);
    tokens = await client.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    issued.add(tokens.refresh_token!);

    // The access token: a JWT for the API with the user's tenant and role, 15 minutes by default.
    assert.equal(decodeProtectedHeader(tokens.access_token).typ, 'at+jwt');
    const claims = decodeJwt(tokens.access_token);
    assert.ok((Array.isArray(claims.aud) ? claims.aud : [claims.aud]).includes(apiAudience(stack)));
    assert.equal(claims.iss, `${stack.publicUrl}/api/auth`);
    assert.equal(claims.azp, app.clientId);
    assert.equal(claims[TENANT_CLAIM], TENANT);
    assert.equal(claims[ROLE_CLAIM], 'doctor');
    assert.equal(claims.scope, 'openid profile email simrs:read offline_access');
    assert.equal(typeof claims.jti, 'string');
    assert.equal(claims.exp! - claims.iat!, 900);
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');
    const idToken = tokens.claims();
    assert.equal(idToken?.aud, app.clientId);
    assert.equal(idToken?.[TENANT_CLAIM], TENANT);

    const userinfo = await client.fetchUserInfo(app.config, tokens.access_token, idToken!.sub);
    assert.equal(userinfo.email, USERS.doctor);
    assert.equal(userinfo[TENANT_CLAIM], TENANT);
    assert.equal(userinfo[ROLE_CLAIM], 'doctor');

    const res = await apiQuery(stack, tokens.access_token);
    assert.equal(res.status, 200);
    assert.ok(((await res.json()) as { result: { data: { items: unknown[] } } }).result.data.items);
  });

  test('introspection (RFC 7662) answers for the client that holds the token', async () => {
    const active = await client.tokenIntrospection(app.config, tokens.access_token);
    assert.equal(active.active, true);
    assert.equal(active.client_id, app.clientId);
    assert.equal(active[TENANT_CLAIM], TENANT);
    const refresh = await client.tokenIntrospection(app.config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
    assert.equal(refresh.active, true);
    const junk = await client.tokenIntrospection(app.config, 'not-a-token');
    assert.equal(junk.active, false);
  });

  test('refresh rotates; reusing the old refresh token ends the family, and the gateway refuses it within 1 s', async () => {
    const old = tokens.refresh_token!;
    const fresh = await client.refreshTokenGrant(app.config, old);
    issued.add(fresh.refresh_token!);
    assert.notEqual(fresh.refresh_token, old, 'rotated');
    assert.notEqual(fresh.access_token, tokens.access_token);
    assert.equal(await status(await apiQuery(stack, fresh.access_token)), 200);

    const reused = Date.now();
    await assert.rejects(client.refreshTokenGrant(app.config, old), (err: client.ResponseBodyError) => err.error === 'invalid_grant');
    const took = await within(1000 - (Date.now() - reused), async () => (await status(await apiQuery(stack, fresh.access_token))) === 401);
    assert.ok(took >= 0, 'the family’s access token is refused within 1 s of the reuse');
    await assert.rejects(
      client.refreshTokenGrant(app.config, fresh.refresh_token!),
      (err: client.ResponseBodyError) => err.error === 'invalid_grant',
      'the new refresh token is gone too',
    );
    assert.equal((await client.tokenIntrospection(app.config, fresh.access_token)).active, false);
  });

  test('revocation (RFC 7009): an access token and a refresh token stop working at the gateway within 1 s', async () => {
    const nurse = browserFor(USERS.nurse);
    const first = await tokensFor(stack, smtp, app, nurse, USERS.nurse);
    assert.equal(await status(await apiQuery(stack, first.access_token)), 200);
    let revoked = Date.now();
    await client.tokenRevocation(app.config, first.access_token, { token_type_hint: 'access_token' });
    assert.ok(
      (await within(1000 - (Date.now() - revoked), async () => (await status(await apiQuery(stack, first.access_token))) === 401)) >= 0,
    );
    assert.equal((await client.tokenIntrospection(app.config, first.access_token)).active, false);

    // Consent is remembered: the second authorization needs neither sign-in nor consent.
    const second = await tokensFor(stack, smtp, app, nurse, USERS.nurse);
    assert.equal(await status(await apiQuery(stack, second.access_token)), 200);
    revoked = Date.now();
    await client.tokenRevocation(app.config, second.refresh_token!, { token_type_hint: 'refresh_token' });
    assert.ok(
      (await within(1000 - (Date.now() - revoked), async () => (await status(await apiQuery(stack, second.access_token))) === 401)) >= 0,
    );
    await assert.rejects(
      client.refreshTokenGrant(app.config, second.refresh_token!),
      (err: client.ResponseBodyError) => err.error === 'invalid_grant',
    );

    // Revoking something unknown is not an error (RFC 7009 §2.2).
    await client.tokenRevocation(app.config, 'unknown-token');
  });

  test('end-session (RP-initiated logout) ends the browser session that signed in', async () => {
    const midwife = browserFor(USERS.midwife);
    const issued = await tokensFor(stack, smtp, app, midwife, USERS.midwife, 'openid simrs:read');
    const url = client.buildEndSessionUrl(app.config, { id_token_hint: issued.id_token!, client_id: app.clientId });
    const res = await midwife.fetch(url.toString());
    assert.ok(res.status < 400, `end-session answered ${res.status}`);
    await res.arrayBuffer();
    const session = await midwife.fetch('/api/auth/get-session');
    assert.equal(await session.text(), 'null', 'signed out');
    sessions.delete(USERS.midwife);
  });

  test('refused: no PKCE, plain PKCE, a redirect URI that is not registered exactly, a wrong redirect_uri at the token endpoint, a used code', async () => {
    const doctor = browserFor(USERS.doctor);
    const authorizeTo = async (params: Record<string, string>) => {
      const url = new URL(app.config.serverMetadata().authorization_endpoint!);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: redirectUri,
        scope: 'openid simrs:read',
        state: 's1',
        ...params,
      }))
        url.searchParams.set(k, v);
      const { next } = await navigate(doctor, url.toString());
      assert.ok(next, 'the browser is sent on');
      return next;
    };
    const noPkce = await authorizeTo({});
    assert.ok(noPkce.toString().startsWith(redirectUri));
    assert.equal(noPkce.searchParams.get('error'), 'invalid_request');
    assert.match(noPkce.searchParams.get('error_description') ?? '', /pkce/i);
    assert.equal(noPkce.searchParams.get('state'), 's1');

    const plain = await authorizeTo({ code_challenge: client.randomPKCECodeVerifier(), code_challenge_method: 'plain' });
    assert.equal(plain.searchParams.get('error'), 'invalid_request');
    assert.match(plain.searchParams.get('error_description') ?? '', /S256/);

    const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
    for (const wrong of [
      redirectUri.replace('/callback', '/elsewhere'),
      redirectUri.replace(/:(\d+)\//, (_m, p: string) => `:${Number(p) + 1}/`),
      'https://evil.example/callback',
    ]) {
      const refused = await authorizeTo({ redirect_uri: wrong, code_challenge: challenge, code_challenge_method: 'S256' });
      assert.ok(!refused.toString().startsWith(wrong), `never redirected to ${wrong}`);
      assert.equal(refused.pathname, '/api/auth/error');
      assert.equal(refused.searchParams.get('error'), 'invalid_redirect');
    }

    // A code redeemed with another redirect_uri, then reused.
    const flow = await codeFlow(app.config, redirectUri, 'openid simrs:read');
    const { callback } = await authorizeWithFetch(stack, smtp, doctor, flow.url, { email: USERS.doctor });
    const code = callback.searchParams.get('code')!;
    const token = (body: Record<string, string>) =>
      fetch(app.config.serverMetadata().token_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          client_id: app.clientId,
          client_secret: app.clientSecret!,
          code_verifier: flow.verifier,
          ...body,
        }),
      });
    const wrongRedirect = await token({ redirect_uri: `${redirectUri}x` });
    assert.equal(wrongRedirect.status, 400);
    assert.equal((await json(wrongRedirect)).error, 'invalid_grant');
    const reused = await token({ redirect_uri: redirectUri });
    assert.equal(reused.status, 400);
    assert.equal((await json(reused)).error, 'invalid_grant', 'codes are single use');
  });

  test('a user of another hospital is shown a refusal and cannot allow the client', async () => {
    const other = browserFor(USERS.otherDoctor);
    const flow = await codeFlow(app.config, redirectUri, 'openid simrs:read');
    const signInPage = (await navigate(other, flow.url.toString())).next!;
    assert.equal(signInPage.pathname, DASHBOARD.signIn);
    const next = await other.signIn(smtp, USERS.otherDoctor, signInPage.search.slice(1));
    const consent = new URL(next.url!, stack.publicUrl);
    assert.equal(consent.pathname, DASHBOARD.consent);
    // identity does not name another hospital's application to this person: the page offers only Go back.
    const shown = await consentShown(other, consent);
    assert.equal(shown.clientStatus, 404);
    assert.equal(shown.clientName, null);
    const forced = await other.fetch('/api/auth/oauth2/consent', {
      method: 'POST',
      json: { accept: true, oauth_query: consent.search.slice(1) },
    });
    assert.equal(forced.status, 403);
    assert.equal((await json(forced)).error, 'access_denied');
  });
});

describe('bearer tokens at the gateway', () => {
  let valid: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

  before(async () => {
    valid = await tokensFor(stack, smtp, app, browserFor(USERS.doctor), USERS.doctor, 'openid simrs:read offline_access');
  });

  test('refused with 401 and the envelope: another audience, an id_token, expired, tampered, another issuer, an unknown key, malformed', async () => {
    const claims = decodeJwt(valid.access_token);
    const now = Math.floor(Date.now() / 1000);
    const base = { ...claims, iat: now, exp: now + 300, jti: `forged-${now}` };
    // The control: identity's key and the real claims pass, so each refusal below is for its one difference.
    assert.equal(await status(await apiQuery(stack, await forgeWithIdentityKey(stack, base))), 200);

    const cases: Array<[string, string]> = [
      ['another audience', await forgeWithIdentityKey(stack, { ...base, aud: 'https://reports.example/api' })],
      ['an id_token', valid.id_token!],
      ['expired', await forgeWithIdentityKey(stack, { ...base, iat: now - 1000, exp: now - 60 })],
      ['another issuer', await forgeWithIdentityKey(stack, { ...base, iss: 'https://idp.example/api/auth' })],
      ['typ JWT instead of at+jwt', await forgeWithIdentityKey(stack, base, { typ: 'JWT' })],
      ['no tenant', await forgeWithIdentityKey(stack, { ...base, [TENANT_CLAIM]: undefined })],
    ];
    const [header, payload, signature] = valid.access_token.split('.');
    const raised = Buffer.from(JSON.stringify({ ...claims, [ROLE_CLAIM]: 'tenant_admin', scope: 'simrs:read simrs:write' })).toString(
      'base64url',
    );
    cases.push(['tampered', `${header}.${raised}.${signature}`]);
    cases.push(['signature of another token', `${header}.${payload}.${valid.id_token!.split('.')[2]}`]);
    const stranger = await generateKeyPair('EdDSA', { extractable: true });
    cases.push([
      'signed by a key identity does not have',
      await new SignJWT(base)
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: (await exportJWK(stranger.publicKey)).x! })
        .sign(stranger.privateKey),
    ]);
    cases.push(['alg none', `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url')}.${payload}.`]);
    cases.push(['malformed', 'not-a-jwt']);
    for (const [what, token] of cases) await assertRefused(await apiQuery(stack, token), what);

    const noScheme = await fetch(`${stack.gatewayUrl}/trpc/pasien.list`, { headers: { authorization: `Token ${valid.access_token}` } });
    assert.equal(noScheme.status, 401);
    await noScheme.arrayBuffer();
  });

  test('a read-only token may query but not mutate (403 from records)', async () => {
    assert.equal(await status(await apiQuery(stack, valid.access_token)), 200);
    const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${valid.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ nama: 'Siti Aminah' }),
    });
    assert.equal(res.status, 403);
    const body = (await res.json()) as { error: { message: string; data: { code: string; httpStatus: number; path: string } } };
    assert.equal(body.error.data.code, 'FORBIDDEN');
    assert.equal(body.error.data.path, 'pasien.create');
    assert.match(body.error.message, /simrs:write/);
  });

  test('key rotation: a token from the new key works at once, tokens from the old key keep working', async () => {
    const oldKid = decodeProtectedHeader(valid.access_token).kid;
    // A token naming a key id the gateway does not know makes it fetch the key set now, so the
    // rotated key below arrives within the cooldown that follows a fetch (the harder case).
    const stranger = await generateKeyPair('EdDSA');
    const unknownKid = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'not-a-key-of-identity' })
      .sign(stranger.privateKey);
    await assertRefused(await apiQuery(stack, unknownKid), 'unknown key id');
    const { stdout } = await run(process.execPath, ['services/identity/src/tenants/cli.ts', 'rotate-signing-key'], {
      env: { ...process.env, IDENTITY_GRPC: stack.urls.identityGrpc },
    });
    assert.match(stdout, /New signing key/);
    const rotated = await client.refreshTokenGrant(app.config, valid.refresh_token!);
    issued.add(rotated.refresh_token!);
    const newKid = decodeProtectedHeader(rotated.access_token).kid;
    assert.notEqual(newKid, oldKid);
    assert.equal(await status(await apiQuery(stack, rotated.access_token)), 200, 'the new key is fetched when a token names it');
    assert.equal(await status(await apiQuery(stack, valid.access_token)), 200, 'the old key stays published');
    const jwks = (await json(await fetch(`${stack.gatewayUrl}/api/auth/jwks`))) as { keys: Array<{ kid: string }> };
    const published = new Set(jwks.keys.map((k) => k.kid));
    assert.ok(published.has(oldKid!) && published.has(newKid!), 'the old and the new key are published');
    // Identity decrypts signing keys itself (once per process); in Postgres they stay encrypted.
    const db = new pg.Client({ connectionString: stack.databases.identity });
    await db.connect();
    try {
      const { rows } = await db.query<{ privateKey: string }>('select "privateKey" from jwks');
      assert.ok(rows.length >= 6, 'the keys from the start and from the rotation');
      for (const { privateKey } of rows) assert.equal(typeof JSON.parse(privateKey), 'string', 'stored as ciphertext, not as a JWK');
    } finally {
      await db.end();
    }
    valid = rotated;
  });

  test("a deactivated user's tokens are refused within 1 s, and refresh no longer works", async () => {
    const nurse = await tokensFor(stack, smtp, app, browserFor(USERS.nurse), USERS.nurse, 'openid simrs:read offline_access');
    assert.equal(await status(await apiQuery(stack, nurse.access_token)), 200);
    const identity = createClient(IdentityService, stack.urls.identityGrpc);
    try {
      const started = Date.now();
      await identity.deactivateUser({ actor: { email: USERS.admin }, user: { email: USERS.nurse } });
      assert.ok(
        (await within(1000 - (Date.now() - started), async () => (await status(await apiQuery(stack, nurse.access_token))) === 401)) >= 0,
      );
      await assert.rejects(
        client.refreshTokenGrant(app.config, nurse.refresh_token!),
        (err: client.ResponseBodyError) => err.error === 'invalid_grant',
      );
      assert.equal((await client.tokenIntrospection(app.config, nurse.access_token)).active, false);
    } finally {
      identity.close();
    }
  });
});

describe('what identity keeps', () => {
  test('no refresh token, authorization code or registration token is readable in Postgres or Redis', async () => {
    assert.ok(issued.size >= 5);
    const db = new pg.Client({ connectionString: stack.databases.identity });
    await db.connect();
    const dump: string[] = [];
    try {
      for (const table of ['oauthRefreshToken', 'oauthAccessToken', 'oauthClient', 'deviceCode', 'oauthConsent']) {
        const { rows } = await db.query(`select * from "${table}"`);
        dump.push(JSON.stringify(rows));
      }
    } finally {
      await db.end();
    }
    const kv = new Redis(redis.url);
    try {
      for (const key of await kv.keys('*')) {
        dump.push(key);
        if ((await kv.type(key)) === 'string') dump.push((await kv.get(key)) ?? '');
        else if ((await kv.type(key)) === 'zset') dump.push(JSON.stringify(await kv.zrange(key, 0, -1)));
      }
    } finally {
      kv.disconnect();
    }
    const text = dump.join('\n');
    for (const secret of issued)
      assert.ok(!text.includes(secret), `a token handed out is readable where identity keeps state (${secret.slice(0, 6)}…)`);
  });
});
