// The session token inside a signed session cookie.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { TEST_SECRET } from '../testing/index.ts';
import { tokenFromCookieValue } from './sessions.ts';

describe('session cookie', () => {
  const sign = (token: string, secret = TEST_SECRET) => `${token}.${createHmac('sha256', secret).update(token).digest('base64')}`;

  test('the signed value gives the token, URL-encoded or not', () => {
    const value = sign('tok3nValue');
    assert.equal(tokenFromCookieValue(value, TEST_SECRET), 'tok3nValue');
    assert.equal(tokenFromCookieValue(encodeURIComponent(value), TEST_SECRET), 'tok3nValue');
  });

  test('anything else gives nothing', () => {
    assert.equal(tokenFromCookieValue(sign('tok3nValue', `${TEST_SECRET}x`), TEST_SECRET), undefined);
    assert.equal(tokenFromCookieValue('tok3nValue', TEST_SECRET), undefined);
    assert.equal(tokenFromCookieValue(`${sign('tok3nValue')}x`, TEST_SECRET), undefined);
    assert.equal(tokenFromCookieValue('%E0%A4%A', TEST_SECRET), undefined);
    assert.equal(tokenFromCookieValue('', TEST_SECRET), undefined);
  });
});
