// SIMRS's OAuth rules: registration-token scopes, stored tokens as keyed hashes, the OAuth settings.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { schema } from '../config.ts';
import { deriveKeys } from '../keys/index.ts';
import { REQUIRED_ENV, TEST_SECRET } from '../testing/index.ts';
import { grantAllows, grantScopes } from './registration-tokens.ts';
import { decodePayload, hashClientSecret, hashOAuthToken } from './tokens.ts';

describe('OAuth rules', () => {
  test('registration tokens grant simrs:write only when allowed', () => {
    assert.ok(!grantScopes(false).includes('simrs:write'));
    assert.ok(grantScopes(false).includes('simrs:read') && grantScopes(false).includes('openid'));
    assert.ok(grantScopes(true).includes('simrs:write'));
  });

  test('SMART scopes stand under the grant: read-only tokens allow reading and searching patients only', () => {
    const read = grantScopes(false);
    const write = grantScopes(true);
    for (const s of ['user/Patient.rs', 'user/Patient.r', 'patient/Patient.rs', 'user/*.read', 'openid'])
      assert.ok(grantAllows(read, s), s);
    for (const s of ['user/Patient.cruds', 'user/Patient.c', 'patient/Patient.write', 'simrs:write', 'system/Patient.cruds', 'admin'])
      assert.ok(!grantAllows(read, s), s);
    // A backend service's read scopes stand under simrs:read; only a key-based client-credentials
    // client may register them (backend-services.ts; test/backend-services.test.ts).
    for (const s of ['system/Patient.rs', 'system/Observation.rs']) assert.ok(grantAllows(read, s), s);
    for (const s of ['user/Patient.cruds', 'patient/Patient.cud', 'user/*.*']) assert.ok(grantAllows(write, s), s);
  });

  test('stored OAuth tokens are keyed hashes, by type', () => {
    const keys = deriveKeys(TEST_SECRET);
    const stored = hashOAuthToken(keys, 'refresh-token-value', 'refresh_token');
    assert.notEqual(stored, 'refresh-token-value');
    assert.notEqual(stored, hashOAuthToken(keys, 'refresh-token-value', 'authorization_code'));
    assert.notEqual(stored, hashOAuthToken(deriveKeys(`${TEST_SECRET}x`), 'refresh-token-value', 'refresh_token'));
    assert.deepEqual(decodePayload(`x.${Buffer.from('{"jti":"a"}').toString('base64url')}.y`), { jti: 'a' });
    assert.equal(decodePayload('not-a-jwt'), undefined);
  });

  test("client secrets are hashed exactly as Better Auth's default stores them (SHA-256, base64url, no padding)", async () => {
    // FIPS 180-2's "abc" vector, then WebCrypto (what Better Auth's default hasher uses) for a secret as issued.
    assert.equal(hashClientSecret('abc'), 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    const secret = 'ZmJhY2tlbmQtc2VjcmV0LWZvci10aGUtdGVzdA';
    const webCrypto = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret))).toString('base64url');
    assert.equal(hashClientSecret(secret), webCrypto);
  });

  test('OAuth settings: defaults and bounds', () => {
    const config = schema.parse(REQUIRED_ENV);
    assert.equal(config.ACCESS_TOKEN_TTL_SECONDS, 900);
    assert.equal(config.API_AUDIENCE, 'https://simrs.example.org/api');
    assert.equal(config.DEVICE_CODE_TTL_SECONDS, 600);
    assert.equal(config.DEVICE_POLL_INTERVAL_SECONDS, 5);
    assert.throws(() => schema.parse({ ...REQUIRED_ENV, ACCESS_TOKEN_TTL_SECONDS: '999999' }));
    assert.equal(config.ACCESS_TOKEN_SIGNING_ALG, 'EdDSA');
    assert.equal(schema.parse({ ...REQUIRED_ENV, ACCESS_TOKEN_SIGNING_ALG: 'RS256' }).ACCESS_TOKEN_SIGNING_ALG, 'RS256');
    // HS256 would need a shared secret with every verifier; "none" is no signature at all.
    for (const refused of ['HS256', 'none', 'rs256']) {
      assert.throws(() => schema.parse({ ...REQUIRED_ENV, ACCESS_TOKEN_SIGNING_ALG: refused }), refused);
    }
  });
});
