// The provider with a client library that shares no code with it nor with the Node libraries the other
// tests use (openid-client is built on oauth4webapi): Authlib, in Python (Debian's python3-authlib), through
// the gateway with real processes. test/support/authlib_client.py does the client's part with Authlib's own
// classes — discovery at the RFC 8414 path, registration, the authorization request with PKCE S256, the
// code exchange, ID-token validation (signature against the JWKS; iss, aud, exp, nonce, at_hash by
// Authlib's CodeIDToken), the API call, refresh rotation, revocation, introspection — and prints JSON; the
// browser's part (sign-in by e-mail OTP, consent) is this file's, with a session cookie.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authlib } from './support/authlib.ts';
import { authorizeWithFetch, Browserless, issuerUrl, issueRegistrationToken, startOAuthWorld } from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';

const TENANT = 'rs-authlib';
const USERS = { admin: 'admin@rs-authlib.test', doctor: 'dokter@rs-authlib.test', nurse: 'perawat@rs-authlib.test' };
const SCOPE = 'openid simrs:read offline_access';

let world: OAuthWorld;
let metadata: Record<string, unknown> & { issuer: string; id_token_signing_alg_values_supported: string[] };
const apiUrl = () => `${world.stack.publicUrl}/api/v1/pasien?limit=1`;

// What each command of authlib_client.py prints.
interface Discovered {
  oidc_url: string;
  oidc_status: number;
  oauth_status: number;
  appended_status: number;
  oidc_invalid: string | null;
  oauth_invalid: string | null;
  same_token_endpoint: boolean;
  metadata: typeof metadata;
}
interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
}
interface IdTokenCheck {
  signature_valid: boolean;
  valid: boolean;
  error: string | null;
  alg: string;
  at_hash_present: boolean;
  claims: { iss: string; sub: string; aud: string; nonce: string };
  valid_without_at_hash: boolean;
}
interface Exchanged {
  error?: string;
  iss_matches: boolean;
  token: Tokens;
  id_token: IdTokenCheck;
}
interface Refreshed {
  error?: string;
  token: Tokens;
}
interface ApiAnswer {
  status: number;
  challenge: string | null;
  refused_after_ms?: number | null;
}
interface Introspected {
  status: number;
  body: { active: boolean; client_id?: string; sub?: string };
}

interface Client {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: string;
  id_token_signed_response_alg?: string;
}

async function register(extra: Record<string, unknown>): Promise<Client> {
  const registered = await authlib<{ status: number; client: Client }>('register', {
    registration_endpoint: metadata.registration_endpoint,
    initial_access_token: await issueRegistrationToken(world.stack, USERS.admin),
    metadata: {
      redirect_uris: [world.redirectUri],
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_basic',
      ...extra,
    },
  });
  assert.equal(registered.status, 201, JSON.stringify(registered.client));
  return registered.client;
}

/** Authlib builds the request, this file plays the browser, Authlib exchanges the code and checks the ID token. */
async function codeFlow(client: Client, browser: Browserless, email: string) {
  const given = { metadata, client, redirect_uri: world.redirectUri, scope: SCOPE };
  const flow = await authlib<{ url: string; state: string; verifier: string; nonce: string }>('authorize', given);
  const url = new URL(flow.url);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(url.searchParams.get('nonce'), flow.nonce);
  const { callback } = await authorizeWithFetch(world.stack, world.smtp, browser, url, { email });
  return authlib<Exchanged>('exchange', { ...given, flow, callback: callback.href });
}

before(async () => {
  world = await startOAuthWorld('authlib', [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
    { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
  ]);
});

after(async () => {
  await world?.stop();
});

describe('Authlib (Python) through the gateway', () => {
  test('discovery: OpenID metadata at the RFC 8414 path, valid by Authlib', async () => {
    const found = await authlib<Discovered>('discover', { issuer: issuerUrl(world.stack).href });
    assert.equal(found.oidc_url, `${world.stack.publicUrl}/.well-known/openid-configuration/api/auth`);
    assert.equal(found.oidc_status, 200);
    // OIDC Discovery §4's form (the well-known path appended to the issuer), what Authlib's OIDC helper builds.
    assert.equal(found.appended_status, 200);
    assert.equal(found.oauth_status, 200);
    assert.equal(found.oidc_invalid, null);
    assert.equal(found.oauth_invalid, null);
    assert.ok(found.same_token_endpoint);
    metadata = found.metadata;
    assert.equal(metadata.issuer, issuerUrl(world.stack).href);
    assert.ok((metadata.id_token_signing_alg_values_supported as string[]).includes('RS256'));
  });

  test('a confidential client: code + PKCE S256, an RS256 ID token valid by CodeIDToken (at_hash too), the API, introspection, refresh rotation and reuse, revocation', async (t) => {
    const client = await register({ client_name: 'Authlib Rahasia' });
    assert.ok(client.client_secret);
    const doctor = new Browserless(world.stack);
    const given = { metadata, client };

    const first = await codeFlow(client, doctor, USERS.doctor);
    assert.equal(first.error, undefined, JSON.stringify(first));
    assert.ok(first.iss_matches, 'RFC 9207 iss in the authorization response');
    const idToken = first.id_token;
    assert.equal(idToken.alg, 'RS256');
    assert.ok(idToken.at_hash_present);
    assert.equal(idToken.error, null);
    assert.ok(idToken.valid, 'signature, iss, aud, exp, iat, nonce and at_hash');
    assert.equal(idToken.claims.aud, client.client_id);

    const token = first.token;
    assert.equal((await authlib<ApiAnswer>('api', { api_url: apiUrl(), access_token: token.access_token })).status, 200);
    const active = await authlib<Introspected>('introspect', { ...given, token: token.access_token, token_type_hint: 'access_token' });
    assert.equal(active.status, 200);
    assert.equal(active.body.active, true);
    assert.equal(active.body.client_id, client.client_id);
    assert.equal(active.body.sub, idToken.claims.sub);

    // Rotation: a new refresh token and a working access token; the old refresh token used again is
    // refused and ends the grant, so the refreshed access token is refused at the gateway within 1 s.
    const refreshed = await authlib<Refreshed>('refresh', { ...given, refresh_token: token.refresh_token });
    assert.equal(refreshed.error, undefined, JSON.stringify(refreshed));
    assert.ok(refreshed.token.refresh_token);
    assert.notEqual(refreshed.token.refresh_token, token.refresh_token);
    assert.equal((await authlib<ApiAnswer>('api', { api_url: apiUrl(), access_token: refreshed.token.access_token })).status, 200);
    const replayed = await authlib<{ error: string | null }>('replay-refresh', { ...given, refresh_token: token.refresh_token });
    assert.equal(replayed.error, 'invalid_grant');
    const afterReuse = await authlib<ApiAnswer>('api-until-refused', {
      api_url: apiUrl(),
      access_token: refreshed.token.access_token,
      within_ms: 1000,
    });
    assert.equal(afterReuse.status, 401);
    t.diagnostic(`after refresh-token reuse, refused after ${afterReuse.refused_after_ms} ms`);

    // RFC 7009 on a second grant: revoking its refresh token ends it; the gateway refuses its access
    // token within 1 s with a Bearer challenge, and introspection says inactive.
    const second = (await codeFlow(client, doctor, USERS.doctor)).token;
    assert.equal((await authlib<ApiAnswer>('api', { api_url: apiUrl(), access_token: second.access_token })).status, 200);
    const revoked = await authlib<{ status: number }>('revoke', {
      ...given,
      token: second.refresh_token,
      token_type_hint: 'refresh_token',
    });
    assert.equal(revoked.status, 200);
    const afterRevocation = await authlib<ApiAnswer>('api-until-refused', {
      api_url: apiUrl(),
      access_token: second.access_token,
      within_ms: 1000,
    });
    assert.equal(afterRevocation.status, 401);
    assert.match(afterRevocation.challenge ?? '', /^Bearer /);
    t.diagnostic(`after revocation, refused after ${afterRevocation.refused_after_ms} ms`);
    for (const [hint, value] of [
      ['access_token', second.access_token],
      ['refresh_token', second.refresh_token],
    ]) {
      const inactive = await authlib<Introspected>('introspect', { ...given, token: value, token_type_hint: hint });
      assert.deepEqual(inactive.body, { active: false }, hint);
    }
  });

  // Authlib 1.2 derives at_hash's hash from the alg name ("RS256" -> sha256); for "EdDSA" it finds no hash
  // and fails the check, though the signature and every other claim are right. Hence RS256 by default,
  // and the advice of docs/oauth.md that clients using Authlib keep it.
  test('an EdDSA client: Authlib verifies the signature but refuses the ID token on at_hash', async (t) => {
    const client = await register({ client_name: 'Authlib EdDSA', id_token_signed_response_alg: 'EdDSA' });
    assert.equal(client.id_token_signed_response_alg, 'EdDSA');
    const result = await codeFlow(client, new Browserless(world.stack), USERS.nurse);
    const idToken = result.id_token;
    assert.equal(idToken.alg, 'EdDSA');
    assert.ok(idToken.signature_valid, 'the Ed25519 signature checks against the JWKS');
    assert.ok(idToken.at_hash_present);
    assert.equal(idToken.valid, false);
    assert.match(idToken.error ?? '', /at_hash/);
    t.diagnostic(`Authlib on the EdDSA ID token: ${idToken.error}`);
    assert.ok(idToken.valid_without_at_hash, 'iss, aud, exp, iat and nonce are right');
    assert.equal((await authlib<ApiAnswer>('api', { api_url: apiUrl(), access_token: result.token.access_token })).status, 200);
  });
});
