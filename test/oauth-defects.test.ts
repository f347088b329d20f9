// Issue 13's numbered defects, each proved through the gateway with real processes (openid-client as the
// client). Every test here failed on the code before the fix; see the conformance table of docs/oauth.md.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { Redis } from 'ioredis';
import * as client from 'openid-client';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient } from '@simrs/proto/grpc';
import { GRANT_CLAIM, ISSUED_AT_MS_CLAIM } from '@simrs/contracts/oauth';
import {
  apiQuery,
  authorizeWithFetch,
  Browserless,
  codeFlow,
  forgeWithIdentityKey,
  issuerUrl,
  issueRegistrationToken,
  registerClient,
  startOAuthWorld,
  tokensFor,
  within,
} from './support/oauth.ts';
import type { OAuthWorld, RegisteredClient } from './support/oauth.ts';

const run = promisify(execFile);
const TENANT = 'rs-defects';
const USERS = {
  admin: 'admin@rs-defects.test',
  doctor: 'dokter@rs-defects.test',
  nurse: 'perawat@rs-defects.test',
  midwife: 'bidan@rs-defects.test',
  pharmacist: 'apoteker@rs-defects.test',
  surgeon: 'bedah@rs-defects.test',
};

let world: OAuthWorld;
let app: RegisteredClient;
const sessions = new Map<string, Browserless>();
const browserFor = (email: string) => {
  if (!sessions.has(email)) sessions.set(email, new Browserless(world.stack));
  return sessions.get(email)!;
};
const status = async (res: Response) => {
  await res.arrayBuffer();
  return res.status;
};
const gateway = (path: string) => `${world.stack.gatewayUrl}${path}`;
const register = async (name: string, extra: Partial<client.ClientMetadata> = {}) =>
  registerClient(world.stack, await issueRegistrationToken(world.stack, USERS.admin), {
    client_name: name,
    redirect_uris: [world.redirectUri],
    post_logout_redirect_uris: [world.logoutUri],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_post',
    ...extra,
  });
const refusedWithin1s = async (accessToken: string) =>
  (await within(1000, async () => (await status(await apiQuery(world.stack, accessToken))) === 401)) >= 0;

before(async () => {
  world = await startOAuthWorld('oauth_defects', [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
    { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
    { email: USERS.midwife, tenant: TENANT, role: 'nurse' },
    { email: USERS.pharmacist, tenant: TENANT, role: 'doctor' },
    { email: USERS.surgeon, tenant: TENANT, role: 'doctor' },
  ]);
  app = await register('Aplikasi Uji');
});

after(async () => {
  await world?.stop();
});

describe('1. revocation boundary', () => {
  test('a user-wide cut-off: a token stamped in its millisecond is accepted, one a millisecond before refused; a new grant works at once', async () => {
    const doctor = browserFor(USERS.doctor);
    const old = await tokensFor(world.stack, world.smtp, app, doctor, USERS.doctor);
    assert.equal(await status(await apiQuery(world.stack, old.access_token)), 200);
    const identity = createClient(IdentityService, world.stack.urls.identityGrpc);
    try {
      await identity.changeRole({ actor: { email: USERS.admin }, user: { email: USERS.doctor }, role: 'nurse' });
    } finally {
      identity.close();
    }
    assert.ok(await refusedWithin1s(old.access_token), 'the token from before the role change is refused');

    // The cut-off identity published, as the gateway received it.
    const claims = decodeJwt(old.access_token);
    const redis = new Redis(world.redisUrl);
    const log = (await redis.zrange('simrs:revocations:log', 0, -1)).map((e) =>
      JSON.parse(e.slice(e.indexOf(':', e.indexOf(':') + 1) + 1)),
    );
    redis.disconnect();
    const cutoff = log.filter((r) => r.userId === claims.sub).at(-1)?.issuedBeforeMs as number;
    assert.equal(typeof cutoff, 'number', 'the cut-off is in milliseconds');
    assert.notEqual(cutoff % 1000, 999, 'a cut-off in the middle of a second is the case second precision got wrong');

    const stamped = (ms: number) =>
      forgeWithIdentityKey(world.stack, { ...claims, jti: randomUUID(), iat: Math.floor(ms / 1000), [ISSUED_AT_MS_CLAIM]: ms });
    assert.equal(await status(await apiQuery(world.stack, await stamped(cutoff))), 200, 'issued in the millisecond of the cut-off');
    assert.equal(await status(await apiQuery(world.stack, await stamped(cutoff - 1))), 401, 'issued a millisecond before');

    const fresh = await tokensFor(world.stack, world.smtp, app, doctor, USERS.doctor);
    assert.equal(await status(await apiQuery(world.stack, fresh.access_token)), 200, 'a grant made right after the revocation');
    assert.equal((await client.tokenIntrospection(app.config, fresh.access_token)).active, true);
  });
});

describe('2. revocation is limited to the grant (RFC 7009 §2.1)', () => {
  test("revoking grant 1's refresh token, or reusing grant 3's, leaves grant 2 of the same user and client alone", async () => {
    const nurse = browserFor(USERS.nurse);
    const one = await tokensFor(world.stack, world.smtp, app, nurse, USERS.nurse);
    const two = await tokensFor(world.stack, world.smtp, app, nurse, USERS.nurse);
    await client.tokenRevocation(app.config, one.refresh_token!, { token_type_hint: 'refresh_token' });
    assert.ok(await refusedWithin1s(one.access_token), "grant 1's access token is refused");
    assert.equal(await status(await apiQuery(world.stack, two.access_token)), 200, "grant 2's access token still works");
    assert.equal((await client.tokenIntrospection(app.config, two.access_token)).active, true);
    assert.notEqual(decodeJwt(one.access_token)[GRANT_CLAIM], decodeJwt(two.access_token)[GRANT_CLAIM], 'each grant has its name');
    const twoRefreshed = await client.refreshTokenGrant(app.config, two.refresh_token!);
    assert.equal(decodeJwt(twoRefreshed.access_token)[GRANT_CLAIM], decodeJwt(two.access_token)[GRANT_CLAIM], 'a refresh keeps the grant');

    const three = await tokensFor(world.stack, world.smtp, app, nurse, USERS.nurse);
    const threeRefreshed = await client.refreshTokenGrant(app.config, three.refresh_token!);
    await assert.rejects(
      client.refreshTokenGrant(app.config, three.refresh_token!),
      (err: client.ResponseBodyError) => err.error === 'invalid_grant',
    );
    assert.ok(await refusedWithin1s(threeRefreshed.access_token), "the reused grant's tokens are refused");
    assert.equal(await status(await apiQuery(world.stack, twoRefreshed.access_token)), 200, 'grant 2 survives a reuse in grant 3');
    await client.refreshTokenGrant(app.config, twoRefreshed.refresh_token!);
  });
});

describe('3. a replayed authorization code (RFC 6749 §4.1.2)', () => {
  test('revokes the access token it produced, at the gateway and at userinfo, within 1 s', async () => {
    const midwife = browserFor(USERS.midwife);
    const flow = await codeFlow(app.config, world.redirectUri, 'openid simrs:read offline_access');
    const { callback } = await authorizeWithFetch(world.stack, world.smtp, midwife, flow.url, { email: USERS.midwife });
    const checks = { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce };
    const first = await client.authorizationCodeGrant(app.config, callback, checks);
    assert.equal(await status(await apiQuery(world.stack, first.access_token)), 200);
    const replayed = Date.now();
    await assert.rejects(
      client.authorizationCodeGrant(app.config, callback, checks),
      (err: client.ResponseBodyError) => err.error === 'invalid_grant',
    );
    const userinfo = () => fetch(gateway('/api/auth/oauth2/userinfo'), { headers: { authorization: `Bearer ${first.access_token}` } });
    assert.ok(
      (await within(1000 - (Date.now() - replayed), async () => (await status(await apiQuery(world.stack, first.access_token))) === 401)) >=
        0,
    );
    assert.equal(await status(await userinfo()), 401);
    await assert.rejects(
      client.refreshTokenGrant(app.config, first.refresh_token!),
      (err: client.ResponseBodyError) => err.error === 'invalid_grant',
    );
  });
});

describe('4. ID token algorithms', () => {
  const jwks = () => createRemoteJWKSet(new URL(gateway('/api/auth/jwks')));
  const atHash = (token: string, hash: 'sha256' | 'sha512') => {
    const digest = createHash(hash).update(token).digest();
    return digest.subarray(0, digest.length / 2).toString('base64url');
  };

  test('ID tokens RS256 by default, EdDSA and ES256 for clients that registered them, anything else refused; access tokens EdDSA', async () => {
    const discovery = (await (await fetch(gateway('/api/auth/.well-known/openid-configuration'))).json()) as Record<string, string[]>;
    assert.deepEqual(discovery.id_token_signing_alg_values_supported, ['RS256', 'EdDSA', 'ES256']);
    const surgeon = browserFor(USERS.surgeon);
    const plain = await tokensFor(world.stack, world.smtp, app, surgeon, USERS.surgeon, 'openid simrs:read');
    assert.equal(decodeProtectedHeader(plain.id_token!).alg, 'RS256');
    assert.equal(decodeProtectedHeader(plain.access_token).alg, 'EdDSA');
    await jwtVerify(plain.id_token!, jwks(), { issuer: issuerUrl(world.stack).href, audience: app.clientId, algorithms: ['RS256'] });
    // The access token verifies against the published JWKS as any resource server would check it (RFC 9068).
    await jwtVerify(plain.access_token, jwks(), {
      issuer: issuerUrl(world.stack).href,
      audience: `${world.stack.publicUrl}/api`,
      typ: 'at+jwt',
      algorithms: ['EdDSA'],
    });
    assert.equal(decodeJwt(plain.id_token!).at_hash, atHash(plain.access_token, 'sha256'));

    for (const [alg, hash] of [
      ['EdDSA', 'sha512'],
      ['ES256', 'sha256'],
    ] as const) {
      const chosen = await register(`Klien ${alg}`, { id_token_signed_response_alg: alg });
      assert.equal(chosen.metadata.id_token_signed_response_alg, alg);
      const tokens = await tokensFor(world.stack, world.smtp, chosen, surgeon, USERS.surgeon, 'openid simrs:read');
      assert.equal(decodeProtectedHeader(tokens.id_token!).alg, alg);
      const { payload } = await jwtVerify(tokens.id_token!, jwks(), {
        issuer: issuerUrl(world.stack).href,
        audience: chosen.clientId,
        algorithms: [alg],
      });
      assert.equal(payload.at_hash, atHash(tokens.access_token, hash), `at_hash for ${alg}`);
      assert.equal(decodeProtectedHeader(tokens.access_token).alg, 'EdDSA', 'access tokens stay EdDSA');
    }
    await assert.rejects(
      register('Klien HS256', { id_token_signed_response_alg: 'HS256' }),
      (err: client.ResponseBodyError) => err.error === 'invalid_client_metadata',
    );
  });

  test('key rotation makes a new key for every algorithm', async () => {
    const before = (await (await fetch(gateway('/api/auth/jwks'))).json()) as { keys: { kid: string; alg: string }[] };
    const { stdout } = await run(process.execPath, ['services/identity/src/tenants/cli.ts', 'rotate-signing-key'], {
      env: { ...process.env, IDENTITY_GRPC: world.stack.urls.identityGrpc },
    });
    assert.match(stdout, /New signing key/);
    const after = (await (await fetch(gateway('/api/auth/jwks'))).json()) as { keys: { kid: string; alg: string }[] };
    const added = after.keys.filter((k) => !before.keys.some((b) => b.kid === k.kid));
    assert.deepEqual(added.map((k) => k.alg).sort(), ['ES256', 'EdDSA', 'RS256']);
  });
});
