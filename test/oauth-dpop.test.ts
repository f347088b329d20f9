// Sender-constrained tokens (RFC 9449, DPoP) end to end with oauth4webapi, through the gateway: identity's
// token endpoint binds the token to the client's key (cnf.jkt), the gateway checks the proof of every
// request (htm, htu, ath, iat, jti) and refuses a stolen token used without the key.
import assert from 'node:assert/strict';
import { randomUUID, createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Redis } from 'ioredis';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import { authorizeWithFetch, Browserless, issuerUrl, issueRegistrationToken, navigate, startOAuthWorld } from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';

const TENANT = 'rs-dpop';
const USERS = { admin: 'admin@rs-dpop.test', doctor: 'dokter@rs-dpop.test' };
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let world: OAuthWorld;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let auth: oauth.ClientAuth;
let keyPair: CryptoKeyPair;
let tokens: oauth.TokenEndpointResponse;
const apiUrl = () => `${world.stack.publicUrl}/api/v1/pasien`;

before(async () => {
  world = await startOAuthWorld('oauth_dpop', [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
  ]);
  const issuer = issuerUrl(world.stack);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
  const registration = await oauth.dynamicClientRegistrationRequest(
    as,
    { client_name: 'DPoP', redirect_uris: [world.redirectUri], application_type: 'native', dpop_bound_access_tokens: true },
    { initialAccessToken: await issueRegistrationToken(world.stack, USERS.admin), ...insecure },
  );
  client = await oauth.processDynamicClientRegistrationResponse(registration);
  auth = oauth.ClientSecretBasic(client.client_secret as string);
  keyPair = await oauth.generateKeyPair('ES256');
});

after(async () => {
  await world?.stop();
});

/** A proof made by hand (jose), so that each claim can be wrong on its own. */
async function proof(claims: { htm?: string; htu?: string; ath?: string; iat?: number; jti?: string }, key = keyPair): Promise<string> {
  const jwk = await exportJWK(key.publicKey);
  return new SignJWT({ htm: 'GET', htu: apiUrl(), jti: randomUUID(), ath: ath(tokens.access_token), ...claims })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk })
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .sign(key.privateKey);
}
const ath = (token: string) => createHash('sha256').update(token).digest('base64url');
const call = async (headers: Record<string, string>) => {
  const res = await fetch(apiUrl().replace(world.stack.publicUrl, world.stack.gatewayUrl), { headers });
  await res.arrayBuffer();
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '' };
};

describe('DPoP (RFC 9449)', () => {
  test('discovery advertises it; the token endpoint binds the token to the key (cnf.jkt, token_type DPoP)', async () => {
    assert.ok(as.dpop_signing_alg_values_supported?.includes('ES256'));
    const dpop = oauth.DPoP(client, keyPair);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: world.redirectUri,
      response_type: 'code',
      scope: 'openid simrs:read offline_access',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const { callback } = await authorizeWithFetch(world.stack, world.smtp, new Browserless(world.stack), url, { email: USERS.doctor });
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, world.redirectUri, verifier, {
      DPoP: dpop,
      ...insecure,
    });
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    assert.equal(tokens.token_type, 'dpop');
    const jkt = (decodeJwt(tokens.access_token).cnf as { jkt?: string } | undefined)?.jkt;
    const thumbprint = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    assert.equal(typeof jkt, 'string');
    assert.equal(jkt, thumbprint);

    const res = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(apiUrl()), new Headers(), null, {
      DPoP: dpop,
      ...insecure,
    });
    assert.equal(res.status, 200, await res.text());
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, { DPoP: dpop, ...insecure }),
    );
    assert.equal(refreshed.token_type, 'dpop', 'a refresh stays bound');
    const sub = decodeJwt(refreshed.access_token).sub!;
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      sub,
      await oauth.userInfoRequest(as, client, refreshed.access_token, { DPoP: dpop, ...insecure }),
    );
    assert.equal(info.sub, sub, 'userinfo with the DPoP scheme and a proof');
  });

  test('a stolen token is refused without the key: as Bearer, without a proof, with a proof of another key', async () => {
    const thief = await generateKeyPair('ES256');
    for (const [what, headers] of [
      ['as a Bearer token', { authorization: `Bearer ${tokens.access_token}` }],
      ['DPoP without a proof', { authorization: `DPoP ${tokens.access_token}` }],
      ['a proof of another key', { authorization: `DPoP ${tokens.access_token}`, dpop: await proof({}, thief) }],
    ] as const) {
      const { status, challenge } = await call(headers);
      assert.equal(status, 401, what);
      assert.match(challenge, /^(DPoP|Bearer) error="invalid_(token|dpop_proof)"/, what);
    }
  });

  test('the proof must be for this request: method, URL, token hash, time; and used once, across gateway replicas', async () => {
    const authorization = `DPoP ${tokens.access_token}`;
    assert.equal((await call({ authorization, dpop: await proof({}) })).status, 200);
    for (const [what, claims] of [
      ['another method', { htm: 'POST' }],
      ['another URL', { htu: `${world.stack.publicUrl}/api/v1/audit` }],
      ['another token', { ath: ath('not-this-token') }],
      ['too old', { iat: Math.floor(Date.now() / 1000) - 600 }],
      ['from the future', { iat: Math.floor(Date.now() / 1000) + 600 }],
    ] as const) {
      const { status, challenge } = await call({ authorization, dpop: await proof(claims) });
      assert.equal(status, 401, what);
      assert.match(challenge, /^DPoP error="invalid_dpop_proof"/, what);
    }
    const once = await proof({});
    assert.equal((await call({ authorization, dpop: once })).status, 200);
    assert.equal((await call({ authorization, dpop: once })).status, 401, 'a replayed proof');

    // A second gateway replica on the same Redis: a proof used at one is refused at the other.
    const [port, opsPort] = [await freePort(), await freePort()];
    const replica = startService('gateway-2', 'gateway', {
      GATEWAY_PORT: String(port),
      OPS_PORT: String(opsPort),
      PUBLIC_URL: world.stack.publicUrl,
      IDENTITY_URL: world.stack.urls.identityHttp,
      IDENTITY_GRPC: world.stack.urls.identityGrpc,
      RECORDS_URL: world.stack.urls.records,
      REDIS_URL: world.redisUrl,
      PRINCIPAL_SECRET: world.stack.secrets.principal,
      CORS_ALLOWED_ORIGINS: world.stack.publicUrl,
    });
    try {
      await waitForReady(`http://127.0.0.1:${opsPort}/readyz`);
      const atReplica = (dpop: string) =>
        fetch(`http://127.0.0.1:${port}/api/v1/pasien`, { headers: { authorization, dpop } }).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        });
      const fresh = await proof({});
      assert.equal(await atReplica(fresh), 200, 'the replica serves a fresh proof');
      assert.equal((await call({ authorization, dpop: fresh })).status, 401, 'the first gateway refuses it after the replica saw it');
      assert.equal(await atReplica(once), 401, 'the replica refuses a proof the first gateway saw');
    } finally {
      await replica.stop();
    }
    const redis = new Redis(world.redisUrl);
    const seen = await redis.keys('simrs:dpop:*');
    redis.disconnect();
    assert.ok(seen.length >= 2, 'proof ids are kept in Redis, where every gateway replica looks');
    assert.ok(
      seen.every((k) => !k.includes(tokens.access_token.slice(0, 20))),
      'no token in a key name',
    );
  });
});

describe('pushed authorization requests (RFC 9126)', () => {
  let pushing: oauth.Client;
  let pushingAuth: oauth.ClientAuth;
  const browser = () => new Browserless(world.stack);

  async function push(extra: Record<string, string> = {}) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const params = new URLSearchParams({
      redirect_uri: world.redirectUri,
      response_type: 'code',
      scope: 'openid simrs:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      pushing,
      await oauth.pushedAuthorizationRequest(as, pushing, pushingAuth, params, insecure),
    );
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ client_id: pushing.client_id, request_uri: pushed.request_uri }).toString();
    return { url, verifier, state, expiresIn: pushed.expires_in };
  }

  test('a client registered to require PAR: refused without it, served with it, each request_uri once', async () => {
    assert.equal(as.pushed_authorization_request_endpoint, `${issuerUrl(world.stack).href}/oauth2/par`);
    const registration = await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: 'PAR', redirect_uris: [world.redirectUri], application_type: 'native', require_pushed_authorization_requests: true },
      { initialAccessToken: await issueRegistrationToken(world.stack, USERS.admin), ...insecure },
    );
    pushing = await oauth.processDynamicClientRegistrationResponse(registration);
    assert.equal(pushing.require_pushed_authorization_requests, true);
    pushingAuth = oauth.ClientSecretBasic(pushing.client_secret as string);

    const direct = new URL(as.authorization_endpoint!);
    direct.search = new URLSearchParams({
      client_id: pushing.client_id,
      redirect_uri: world.redirectUri,
      response_type: 'code',
      scope: 'openid simrs:read',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    }).toString();
    const refused = await navigate(browser(), direct.href);
    assert.equal(refused.next?.searchParams.get('error'), 'invalid_request', String(refused.next));

    const flow = await push();
    assert.equal(flow.expiresIn, 60);
    const person = browser();
    const { callback } = await authorizeWithFetch(world.stack, world.smtp, person, flow.url, { email: USERS.doctor });
    const params = oauth.validateAuthResponse(as, pushing, callback, flow.state);
    const answer = await oauth.authorizationCodeGrantRequest(as, pushing, pushingAuth, params, world.redirectUri, flow.verifier, insecure);
    const issued = await oauth.processAuthorizationCodeResponse(as, pushing, answer);
    const res = await fetch(apiUrl().replace(world.stack.publicUrl, world.stack.gatewayUrl), {
      headers: { authorization: `Bearer ${issued.access_token}` },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();

    const again = await navigate(person, flow.url.href);
    assert.equal(again.next?.searchParams.get('error'), 'invalid_request', 'a request_uri is used once');
  });

  test('the push is authenticated like the token endpoint, and names only registered redirect URIs', async () => {
    await assert.rejects(
      oauth.processPushedAuthorizationResponse(
        as,
        pushing,
        await oauth.pushedAuthorizationRequest(
          as,
          pushing,
          oauth.ClientSecretBasic('wrong'),
          new URLSearchParams({ response_type: 'code', redirect_uri: world.redirectUri }),
          insecure,
        ),
      ),
      (err: oauth.ResponseBodyError | oauth.WWWAuthenticateChallengeError) => err.status === 401,
    );
    await assert.rejects(
      push({ redirect_uri: `${world.redirectUri}/other` }),
      (err: oauth.ResponseBodyError) => err.error === 'invalid_request',
    );
  });
});
