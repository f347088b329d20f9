// The OAuth 2.0 / OIDC provider's front door, through the gateway with real processes: a real OIDC client
// library (openid-client) runs discovery; clients register with an initial access token (from the admin
// gRPC API, a tenant administrator's session or the CLI); the authorization endpoint ends a session at
// logout and refuses what it must (no PKCE, plain PKCE, an unregistered redirect URI, a wrong
// redirect_uri or a used code at the token endpoint, a user of another hospital). The tokens a client
// gets and what it can do with them: test/oauth-tokens.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import * as client from 'openid-client';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import {
  apiAudience,
  authorizeWithFetch,
  codeFlow,
  consentShown,
  issuerUrl,
  issueRegistrationToken,
  navigate,
  registerClient,
  tokensFor,
} from './support/oauth.ts';
import type { RegisteredClient } from './support/oauth.ts';
import {
  browserFor,
  clientMetadata,
  issued,
  json,
  redirectUri,
  sessions,
  smtp,
  stack,
  status,
  TENANT,
  USERS,
  useOAuthStack,
} from './support/oauth-suite.ts';

const run = promisify(execFile);
useOAuthStack('oauth');
/** The confidential client registered with a read-only registration token. */
let app: RegisteredClient;

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
