// Key derivation, sealing and the keyed hash.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TEST_SECRET } from '../testing/index.ts';
import { deriveKeys, hmac, open, seal } from './keys.ts';

describe('keys', () => {
  test('one key per purpose, stable for a secret, different across secrets', () => {
    const a = deriveKeys(TEST_SECRET);
    const b = deriveKeys(TEST_SECRET);
    const c = deriveKeys(`${TEST_SECRET}x`);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a.redisKeyName, c.redisKeyName);
    const all = [a.redisKeyName, a.redisValue, a.otp, a.magicLink].map((k) => k.toString('hex'));
    assert.equal(new Set(all).size, 4);
    assert.ok(all.every((k) => k.length === 64));
    // REDIS_KEY_TEST_SECRET moves only the Redis keys.
    const d = deriveKeys(TEST_SECRET, 'another-secret-for-redis-key-names-xxxxxxxx');
    assert.notDeepEqual(d.redisKeyName, a.redisKeyName);
    assert.deepEqual(d.otp, a.otp);
  });

  test('sealed values open only under their key name and are never readable', () => {
    const { redisValue } = deriveKeys(TEST_SECRET);
    const sealed = seal(redisValue, '{"token":"abc","email":"x@y.z"}', 'name-1');
    assert.ok(!sealed.includes('abc') && !sealed.includes('x@y.z'));
    assert.equal(open(redisValue, sealed, 'name-1'), '{"token":"abc","email":"x@y.z"}');
    assert.equal(open(redisValue, sealed, 'name-2'), undefined, 'bound to its key name');
    assert.equal(open(deriveKeys(`${TEST_SECRET}x`).redisValue, sealed, 'name-1'), undefined);
    assert.equal(open(redisValue, `${sealed.slice(0, -2)}AA`, 'name-1'), undefined, 'tampering detected');
    assert.notEqual(seal(redisValue, 'same', 'n'), seal(redisValue, 'same', 'n'), 'random nonce');
  });

  test('the keyed hash of a 6-digit code cannot be looked up without the key', () => {
    const { otp } = deriveKeys(TEST_SECRET);
    assert.notEqual(hmac(otp, '123456'), hmac(deriveKeys(`${TEST_SECRET}x`).otp, '123456'));
    assert.match(hmac(otp, '123456'), /^[A-Za-z0-9_-]{43}$/);
  });
});
