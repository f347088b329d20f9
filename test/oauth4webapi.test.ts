// The provider with a second client library, oauth4webapi (the tests elsewhere use openid-client),
// through the gateway with real processes: discovery, registration, the code flow with PKCE for a
// confidential and a public client, ID-token validation (signature and claims) in RS256 and EdDSA,
// access tokens verified as a resource server would (RFC 9068), refresh rotation and reuse,
// revocation, introspection, userinfo, end-session and the device grant.
// Caveat: openid-client 6 is built on oauth4webapi, so the two share their protocol core; they differ
// in API and in what each validates, which is why both are run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as oauth from 'oauth4webapi';
import { decodeProtectedHeader } from 'jose';
import {
  authorizeWithFetch,
  Browserless,
  DEVICE_CODE_GRANT,
  issuerUrl,
  issueRegistrationToken,
  navigate,
  startOAuthWorld,
} from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';

const TENANT = 'rs-o4w';
const USERS = { admin: 'admin@rs-o4w.test', doctor: 'dokter@rs-o4w.test', nurse: 'perawat@rs-o4w.test' };
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let world: OAuthWorld;
let as: oauth.AuthorizationServer;
let doctor: Browserless;

before(async () => {
  world = await startOAuthWorld('oauth4webapi', [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
    { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
  ]);
  doctor = new Browserless(world.stack);
});

after(async () => {
  await world?.stop();
});

interface Registered {
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

async function register(metadata: Record<string, unknown>): Promise<Registered> {
  const initialAccessToken = await issueRegistrationToken(world.stack, USERS.admin);
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    { redirect_uris: [world.redirectUri], post_logout_redirect_uris: [world.logoutUri], application_type: 'native', ...metadata },
    { initialAccessToken, ...insecure },
  );
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  const secret = client.client_secret;
  return { client, auth: typeof secret === 'string' ? oauth.ClientSecretBasic(secret) : oauth.None() };
}

/** The code flow with PKCE S256, state and nonce; the ID token's signature checked against the JWKS. */
async function codeFlow({ client, auth }: Registered, browser: Browserless, email: string, scope = 'openid simrs:read offline_access') {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: world.redirectUri,
    response_type: 'code',
    scope,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { callback } = await authorizeWithFetch(world.stack, world.smtp, browser, url, { email });
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, world.redirectUri, verifier, insecure);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
  await oauth.validateApplicationLevelSignature(as, response, insecure);
  return tokens;
}

const api = (accessToken: string) =>
  oauth.protectedResourceRequest(
    accessToken,
    'GET',
    new URL(`${world.stack.publicUrl}/api/v1/pasien?limit=1`),
    new Headers(),
    null,
    insecure,
  );
/** The gateway's answer; a refusal comes as oauth4webapi's error for a Bearer challenge (RFC 6750 §3). */
const gatewayStatus = async (accessToken: string) => {
  try {
    const res = await api(accessToken);
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    if (err instanceof oauth.WWWAuthenticateChallengeError && err.cause[0]?.parameters.error === 'invalid_token') return err.status;
    throw err;
  }
};

describe('oauth4webapi through the gateway', () => {
  test('discovery (OpenID Connect and RFC 8414 at the path for an issuer with a path)', async () => {
    const issuer = issuerUrl(world.stack);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
    const rfc8414 = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    assert.equal(rfc8414.token_endpoint, as.token_endpoint);
    assert.ok(as.token_endpoint_auth_methods_supported?.includes('none'));
  });

  test('a confidential client: code + PKCE, RS256 ID token, the access token as a resource server sees it, userinfo, introspection', async () => {
    const app = await register({ client_name: 'O4W Rahasia', token_endpoint_auth_method: 'client_secret_basic' });
    const tokens = await codeFlow(app, doctor, USERS.doctor);
    assert.equal(decodeProtectedHeader(tokens.id_token!).alg, 'RS256');
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    assert.equal(claims.aud, app.client.client_id);

    const request = new Request(`${world.stack.publicUrl}/api/v1/pasien`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const access = await oauth.validateJwtAccessToken(as, request, `${world.stack.publicUrl}/api`, insecure);
    assert.equal(access.sub, claims.sub);
    assert.equal(await gatewayStatus(tokens.access_token), 200);

    const info = await oauth.processUserInfoResponse(
      as,
      app.client,
      claims.sub,
      await oauth.userInfoRequest(as, app.client, tokens.access_token, insecure),
    );
    assert.equal(info.sub, claims.sub);
    const active = await oauth.processIntrospectionResponse(
      as,
      app.client,
      await oauth.introspectionRequest(as, app.client, app.auth, tokens.access_token, insecure),
    );
    assert.equal(active.active, true);
    assert.equal(active.client_id, app.client.client_id);

    // Refresh rotates; reusing the old refresh token ends the grant.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      app.client,
      await oauth.refreshTokenGrantRequest(as, app.client, app.auth, tokens.refresh_token!, insecure),
    );
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    await assert.rejects(
      oauth.processRefreshTokenResponse(
        as,
        app.client,
        await oauth.refreshTokenGrantRequest(as, app.client, app.auth, tokens.refresh_token!, insecure),
      ),
      (err: oauth.ResponseBodyError) => err.error === 'invalid_grant',
    );
    const took = Date.now();
    while ((await gatewayStatus(refreshed.access_token)) !== 401) assert.ok(Date.now() - took < 1000, 'refused within 1 s');
    const inactive = await oauth.processIntrospectionResponse(
      as,
      app.client,
      await oauth.introspectionRequest(as, app.client, app.auth, refreshed.access_token, insecure),
    );
    assert.equal(inactive.active, false);
  });

  test('a public client: code + PKCE, an EdDSA ID token, revocation, end-session', async () => {
    const pub = await register({ client_name: 'O4W Publik', token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'EdDSA' });
    assert.equal(pub.client.id_token_signed_response_alg, 'EdDSA');
    const nurse = new Browserless(world.stack);
    const tokens = await codeFlow(pub, nurse, USERS.nurse);
    assert.equal(decodeProtectedHeader(tokens.id_token!).alg, 'EdDSA');
    assert.equal(await gatewayStatus(tokens.access_token), 200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, pub.client, pub.auth, tokens.refresh_token!, {
        additionalParameters: { token_type_hint: 'refresh_token' },
        ...insecure,
      }),
    );
    const took = Date.now();
    while ((await gatewayStatus(tokens.access_token)) !== 401) assert.ok(Date.now() - took < 1000, 'refused within 1 s');

    const again = await codeFlow(pub, nurse, USERS.nurse);
    const logout = new URL(as.end_session_endpoint!);
    logout.search = new URLSearchParams({
      id_token_hint: again.id_token!,
      post_logout_redirect_uri: world.logoutUri,
      state: 'o4w',
    }).toString();
    assert.equal((await navigate(nurse, logout.href)).next?.href, `${world.logoutUri}?state=o4w`);
    assert.equal(await (await nurse.fetch('/api/auth/get-session')).text(), 'null');
  });

  test('the device grant (RFC 8628)', async () => {
    const terminal = await register({
      client_name: 'O4W Terminal',
      token_endpoint_auth_method: 'none',
      grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
      redirect_uris: undefined,
    });
    const grant = await oauth.processDeviceAuthorizationResponse(
      as,
      terminal.client,
      await oauth.deviceAuthorizationRequest(as, terminal.client, terminal.auth, { scope: 'simrs:read' }, insecure),
    );
    const poll = async () =>
      oauth.processDeviceCodeResponse(
        as,
        terminal.client,
        await oauth.deviceCodeGrantRequest(as, terminal.client, terminal.auth, grant.device_code, insecure),
      );
    await assert.rejects(poll(), (err: oauth.ResponseBodyError) => err.error === 'authorization_pending');
    assert.equal((await doctor.fetch(`/api/auth/device?user_code=${grant.user_code}`)).status, 200);
    assert.equal((await doctor.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: grant.user_code } })).status, 200);
    await sleep((grant.interval ?? 5) * 1000 + 100);
    const tokens = await poll();
    assert.equal(await gatewayStatus(tokens.access_token), 200);
  });
});
