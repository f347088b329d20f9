import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonTooDeep, MAX_JSON_DEPTH, storableStrings } from './json-depth.ts';

test('nesting past the bound is found without recursion, strings and escapes are skipped', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  assert.equal(jsonTooDeep(deep(MAX_JSON_DEPTH)), false);
  assert.equal(jsonTooDeep(deep(MAX_JSON_DEPTH + 1)), true);
  assert.equal(jsonTooDeep(deep(1_000_000)), true);
  assert.equal(jsonTooDeep(JSON.stringify({ a: '['.repeat(1000), b: '\\"[[[[' })), false);
  assert.equal(jsonTooDeep(Buffer.from('{"a":{"b":[1,2,{"c":"}"}]}}')), false);
  assert.equal(jsonTooDeep('{"a":'.repeat(65) + '1' + '}'.repeat(65)), true);
});

test('strings Postgres cannot store are found, in values and keys', () => {
  assert.equal(storableStrings({ a: ['fine', 'ü', '😀'], b: { c: 1 } }), true);
  assert.equal(storableStrings({ a: 'x\u0000y' }), false);
  assert.equal(storableStrings({ a: ['\ud800'] }), false);
  assert.equal(storableStrings({ ['\udc00']: 1 }), false);
});
