// Unit tests of the pure pieces: key derivation and sealing, cookie parsing, option shaping, config.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { landing } from './auth.ts';
import { schema } from './config.ts';
import { adminAuthorizer, isLoopback } from './grpc.ts';
import { isOffered } from './http.ts';
import { decodePayload, hashOAuthToken } from './oauth.ts';
import { grantScopes } from './registration-tokens.ts';
import { deriveKeys, hmac, open, seal } from './keys.ts';
import { guessBound } from './limits.ts';
import { tokenFromCookieValue } from './sessions.ts';
import { shapeAuthenticationOptions } from './webauthn.ts';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const BASE_ENV = {
  DATABASE_URL: 'postgres://u@h/identity',
  REDIS_URL: 'redis://h:6379',
  NOTIFIER_GRPC: 'notifier:50052',
  PUBLIC_URL: 'https://simrs.example.org',
  AUTH_SECRET: SECRET,
};

describe('keys', () => {
  test('one key per purpose, stable for a secret, different across secrets', () => {
    const a = deriveKeys(SECRET);
    const b = deriveKeys(SECRET);
    const c = deriveKeys(`${SECRET}x`);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a.redisKeyName, c.redisKeyName);
    const all = [a.redisKeyName, a.redisValue, a.otp, a.magicLink].map((k) => k.toString('hex'));
    assert.equal(new Set(all).size, 4);
    assert.ok(all.every((k) => k.length === 64));
    // REDIS_KEY_SECRET moves only the Redis keys.
    const d = deriveKeys(SECRET, 'another-secret-for-redis-key-names-xxxxxxxx');
    assert.notDeepEqual(d.redisKeyName, a.redisKeyName);
    assert.deepEqual(d.otp, a.otp);
  });

  test('sealed values open only under their key name and are never readable', () => {
    const { redisValue } = deriveKeys(SECRET);
    const sealed = seal(redisValue, '{"token":"abc","email":"x@y.z"}', 'name-1');
    assert.ok(!sealed.includes('abc') && !sealed.includes('x@y.z'));
    assert.equal(open(redisValue, sealed, 'name-1'), '{"token":"abc","email":"x@y.z"}');
    assert.equal(open(redisValue, sealed, 'name-2'), undefined, 'bound to its key name');
    assert.equal(open(deriveKeys(`${SECRET}x`).redisValue, sealed, 'name-1'), undefined);
    assert.equal(open(redisValue, `${sealed.slice(0, -2)}AA`, 'name-1'), undefined, 'tampering detected');
    assert.notEqual(seal(redisValue, 'same', 'n'), seal(redisValue, 'same', 'n'), 'random nonce');
  });

  test('the keyed hash of a 6-digit code cannot be looked up without the key', () => {
    const { otp } = deriveKeys(SECRET);
    assert.notEqual(hmac(otp, '123456'), hmac(deriveKeys(`${SECRET}x`).otp, '123456'));
    assert.match(hmac(otp, '123456'), /^[A-Za-z0-9_-]{43}$/);
  });
});

describe('session cookie', () => {
  const sign = (token: string, secret = SECRET) => `${token}.${createHmac('sha256', secret).update(token).digest('base64')}`;

  test('the signed value gives the token, URL-encoded or not', () => {
    const value = sign('tok3nValue');
    assert.equal(tokenFromCookieValue(value, SECRET), 'tok3nValue');
    assert.equal(tokenFromCookieValue(encodeURIComponent(value), SECRET), 'tok3nValue');
  });

  test('anything else gives nothing', () => {
    assert.equal(tokenFromCookieValue(sign('tok3nValue', `${SECRET}x`), SECRET), undefined);
    assert.equal(tokenFromCookieValue('tok3nValue', SECRET), undefined);
    assert.equal(tokenFromCookieValue(`${sign('tok3nValue')}x`, SECRET), undefined);
    assert.equal(tokenFromCookieValue('%E0%A4%A', SECRET), undefined);
    assert.equal(tokenFromCookieValue('', SECRET), undefined);
  });

});

describe('passkey authentication options', () => {
  test('every meaningful field is present, in standard form', () => {
    const shaped = shapeAuthenticationOptions({ challenge: 'abc', rpId: 'simrs.example.org', timeout: 60000, userVerification: 'preferred' }, { id: 'simrs.example.org', name: 'SIMRS' });
    assert.deepEqual(shaped, {
      challenge: 'abc',
      timeout: 60000,
      rpId: 'simrs.example.org',
      rp: { name: 'SIMRS', id: 'simrs.example.org' },
      allowCredentials: [],
      userVerification: 'preferred',
      extensions: {},
    });
  });

  test('transports stored empty do not become [""]', () => {
    const shaped = shapeAuthenticationOptions(
      { challenge: 'abc', allowCredentials: [{ id: 'cred1', transports: [''] }, { id: 'cred2', transports: ['internal', 'hybrid'] }] },
      { id: 'localhost', name: 'SIMRS' },
    );
    assert.deepEqual(shaped.allowCredentials, [
      { id: 'cred1', type: 'public-key', transports: [] },
      { id: 'cred2', type: 'public-key', transports: ['internal', 'hybrid'] },
    ]);
  });
});

describe('settings', () => {
  test('defaults', () => {
    const c = schema.parse(BASE_ENV);
    assert.equal(c.HTTP_PORT, 4001);
    assert.equal(c.GRPC_PORT, 50051);
    assert.equal(c.MAGIC_LINK_TTL_SECONDS, 300);
    assert.equal(c.OTP_TTL_SECONDS, 300);
    assert.equal(c.PASSKEY_RP_ID, 'simrs.example.org');
    assert.deepEqual(c.CORS_ALLOWED_ORIGINS, []);
    assert.equal(c.COOKIE_DOMAIN, undefined);
    assert.equal(c.MIGRATE_ON_START, true);
  });

  test('bad values name the variable', () => {
    const cases: [Record<string, string>, string][] = [
      [{ AUTH_SECRET: 'short' }, 'AUTH_SECRET'],
      [{ PUBLIC_URL: 'https://simrs.example.org/some/path' }, 'PUBLIC_URL'],
      [{ NOTIFIER_GRPC: 'notifier' }, 'NOTIFIER_GRPC'],
      [{ CORS_ALLOWED_ORIGINS: 'https://ok.example,not a url' }, 'CORS_ALLOWED_ORIGINS'],
      [{ OTP_SENDS_PER_ADDRESS_PER_DAY: '2' }, 'OTP_SENDS_PER_ADDRESS_PER_DAY'],
    ];
    for (const [env, name] of cases) {
      const parsed = schema.safeParse({ ...BASE_ENV, ...env });
      assert.equal(parsed.success, false, name);
      assert.ok(parsed.error!.issues.some((i) => i.path.join('.').startsWith(name)), `${name}: ${JSON.stringify(parsed.error!.issues)}`);
    }
  });

  test('the guess bound follows the send limits', () => {
    const c = schema.parse(BASE_ENV);
    assert.deepEqual(guessBound(c), { perHour: 15, perDay: 60 });
  });
});

describe('http surface', () => {
  test('only the offered Better Auth routes pass', () => {
    for (const p of ['/sign-in/email-otp', '/passkey/verify-authentication', '/update-session', '/oauth2/token', '/.well-known/openid-configuration', '/device/code'])
      assert.ok(isOffered(p), p);
    for (const p of ['/list-sessions', '/revoke-session', '/update-user', '/delete-user', '/sign-in/social', '/admin/list-users', '/email-otp/verify-email'])
      assert.ok(!isOffered(p), p);
    // Better Auth's OAuth client and consent management, resource admin, session JWTs and session-token device grant.
    for (const p of ['/oauth2/create-client', '/oauth2/get-clients', '/oauth2/delete-client', '/oauth2/client/rotate-secret', '/oauth2/get-consents', '/admin/oauth2/resources', '/token', '/device/token'])
      assert.ok(!isOffered(p), p);
  });

  test('links land on the account page and fail back to the sign-in page', () => {
    const url = landing('https://simrs.example.org/api/auth/magic-link/verify?token=t&callbackURL=%2F', 'https://simrs.example.org');
    const u = new URL(url);
    assert.equal(u.searchParams.get('callbackURL'), 'https://simrs.example.org/auth/account');
    assert.equal(u.searchParams.get('errorCallbackURL'), 'https://simrs.example.org/auth/sign-in');
    const kept = new URL(landing('https://x.org/api/auth/magic-link/verify?token=t&callbackURL=%2Foauth%2Fcontinue', 'https://x.org'));
    assert.equal(kept.searchParams.get('callbackURL'), '/oauth/continue');
  });
});

describe('admin authorization', () => {
  const call = (peer: string, authorization?: string) =>
    ({ getPeer: () => peer, metadata: { get: (k: string) => (k === 'authorization' && authorization ? [authorization] : []) } }) as never;

  test('without a token: loopback only', () => {
    const authorize = adminAuthorizer(undefined);
    for (const peer of ['127.0.0.1:5000', '::1:5000', '[::1]:5000', '::ffff:127.0.0.1:5000']) {
      assert.ok(isLoopback(peer), peer);
      assert.doesNotThrow(() => authorize(call(peer)));
    }
    assert.throws(() => authorize(call('10.1.2.3:5000')), { code: 7 });
  });

  test('with a token: the token, from anywhere', () => {
    const authorize = adminAuthorizer('the-admin-token-which-is-long-enough-xx');
    assert.doesNotThrow(() => authorize(call('10.1.2.3:5000', 'Bearer the-admin-token-which-is-long-enough-xx')));
    assert.throws(() => authorize(call('127.0.0.1:5000')), { code: 16 });
    assert.throws(() => authorize(call('127.0.0.1:5000', 'Bearer wrong')), { code: 16 });
  });
});

describe('OAuth rules', () => {
  test('registration tokens grant simrs:write only when allowed', () => {
    assert.ok(!grantScopes(false).includes('simrs:write'));
    assert.ok(grantScopes(false).includes('simrs:read') && grantScopes(false).includes('openid'));
    assert.ok(grantScopes(true).includes('simrs:write'));
  });

  test('stored OAuth tokens are keyed hashes, by type', () => {
    const keys = deriveKeys(SECRET);
    const stored = hashOAuthToken(keys, 'refresh-token-value', 'refresh_token');
    assert.notEqual(stored, 'refresh-token-value');
    assert.notEqual(stored, hashOAuthToken(keys, 'refresh-token-value', 'authorization_code'));
    assert.notEqual(stored, hashOAuthToken(deriveKeys(`${SECRET}x`), 'refresh-token-value', 'refresh_token'));
    assert.deepEqual(decodePayload(`x.${Buffer.from('{"jti":"a"}').toString('base64url')}.y`), { jti: 'a' });
    assert.equal(decodePayload('not-a-jwt'), undefined);
  });

  test('OAuth settings: defaults and bounds', () => {
    const config = schema.parse(BASE_ENV);
    assert.equal(config.ACCESS_TOKEN_TTL_SECONDS, 900);
    assert.equal(config.API_AUDIENCE, 'https://simrs.example.org/api');
    assert.equal(config.DEVICE_CODE_TTL_SECONDS, 600);
    assert.equal(config.DEVICE_POLL_INTERVAL_SECONDS, 5);
    assert.throws(() => schema.parse({ ...BASE_ENV, ACCESS_TOKEN_TTL_SECONDS: '999999' }));
  });
});
