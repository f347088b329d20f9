// The tokens of the OAuth 2.0 / OIDC provider, through the gateway with real processes and a real OIDC
// client library (openid-client): the authorization code flow with PKCE in Chromium (sign-in by the OTP
// read from the SMTP peer, consent), the token call, userinfo, pasien.list with the bearer token,
// introspection, refresh with rotation and reuse detection, and revocation; then every bearer token the
// gateway must refuse, key rotation, a deactivated user's tokens, and that nothing handed out is
// readable where identity keeps state. Discovery, registration and the authorization endpoint's
// refusals: test/oauth.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Redis } from 'ioredis';
import * as client from 'openid-client';
import pg from 'pg';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient } from '@simrs/proto/grpc';
import { ROLE_CLAIM, TENANT_CLAIM } from '@simrs/contracts/oauth';
import { launchBrowser } from './support/browser.ts';
import { assertAccessibleOnPhoneAndTablet } from './support/dashboard.ts';
import {
  apiAudience,
  apiQuery,
  codeFlow,
  forgeWithIdentityKey,
  issueRegistrationToken,
  registerClient,
  tokensFor,
  within,
} from './support/oauth.ts';
import type { RegisteredClient } from './support/oauth.ts';
import {
  browserFor,
  clientMetadata,
  issued,
  json,
  redirectUri,
  redis,
  smtp,
  stack,
  status,
  TENANT,
  USERS,
  useOAuthStack,
} from './support/oauth-suite.ts';
import { isOtpMail, otpFrom } from './support/users.ts';

const run = promisify(execFile);
/** The confidential client, registered with a read-only registration token as a hospital's integration is. */
let app: RegisteredClient;
useOAuthStack('oauth_tokens', async () => {
  const token = await issueRegistrationToken(stack, USERS.admin);
  issued.add(token);
  app = await registerClient(stack, token, clientMetadata('Aplikasi Rujukan'));
});

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
