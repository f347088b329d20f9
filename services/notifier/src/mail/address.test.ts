import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAddress, maskAddress, parseAddress, scrubAddresses } from './address.ts';

test('isAddress takes plain addresses only', () => {
  for (const good of ['a@b.co', 'dr.ayu+otp@rs-sehat.example', "o'neil@mail.example.org", 'x@xn--80ak6aa92e.com'])
    assert.ok(isAddress(good), good);
  for (const bad of [
    '',
    'a',
    'a@b',
    '@b.co',
    'a@-b.co',
    'a..b@c.co',
    'a b@c.co',
    'a@b.co>',
    '<a@b.co>',
    'a@b.c0',
    `${'x'.repeat(65)}@b.co`,
  ])
    assert.ok(!isAddress(bad), bad);
});

test('parseAddress reads the From setting', () => {
  assert.deepEqual(parseAddress('SIMRS <no-reply@simrs.example>'), { name: 'SIMRS', address: 'no-reply@simrs.example' });
  assert.deepEqual(parseAddress('"RS Sehat, Jakarta" <a@b.example>'), { name: 'RS Sehat, Jakarta', address: 'a@b.example' });
  assert.deepEqual(parseAddress('a@b.example'), { address: 'a@b.example' });
  assert.equal(parseAddress('nobody'), undefined);
  assert.equal(parseAddress('x <a@b.example>\r\nBcc: c@d.example'), undefined);
});

test('masking and scrubbing keep addresses out of stored errors', () => {
  assert.equal(maskAddress('dokter@rs-sehat.example'), 'd***@rs-sehat.example');
  assert.equal(
    scrubAddresses('550 5.1.1 <dokter@rs-sehat.example>: Recipient address rejected; from=x@y.z'),
    '550 5.1.1 <address>: Recipient address rejected; <address>',
  );
});
