import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deriveKey, isSealed, open, seal } from './seal.ts';

const key = deriveKey('s'.repeat(32), 'salt', 'test');

test('a sealed value opens with its key and context only', () => {
  const sealed = seal(key, 'rahasia', 'here');
  assert.ok(isSealed(sealed));
  assert.doesNotMatch(sealed, /rahasia/);
  assert.equal(open(key, sealed, 'here'), 'rahasia');
  assert.equal(open(key, sealed, 'there'), undefined);
  assert.equal(open(deriveKey('s'.repeat(32), 'salt', 'other'), sealed, 'here'), undefined);
  assert.notEqual(seal(key, 'rahasia', 'here'), sealed, 'a fresh nonce each time');
});

test('a value not spelled exactly as sealed does not open', () => {
  for (let n = 0; n < 6; n++) {
    const sealed = seal(key, 'x'.repeat(n), 'here');
    const body = sealed.slice(sealed.indexOf('.') + 1);
    for (const changed of [body, `${sealed}A`, `${sealed}=`, ` ${sealed}`, `${sealed}\n`, sealed.replace('.', '.~')])
      assert.equal(open(key, changed, 'here'), undefined, JSON.stringify(changed));
    const last = sealed.at(-1)!;
    for (const other of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
      const respelled = sealed.slice(0, -1) + other;
      if (other !== last) assert.equal(open(key, respelled, 'here'), undefined, `${last} spelled ${other}`);
    }
  }
});
