import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Template } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { InvalidArgument } from './errors.ts';
import { validateSendEmail } from './validation.ts';

interface Request {
  idempotencyKey: string;
  recipient: string;
  template: Template;
  locale: string;
  parameters: Record<string, string>;
}

const ok: Request = {
  idempotencyKey: 'otp:user-1:2026-03-02T08:00',
  recipient: 'dokter@rs-sehat.example',
  template: Template.SIGN_IN_OTP,
  locale: 'id',
  parameters: { otp: '482913', tenant_name: 'RSUD Sehat' },
};

function rejects(change: Partial<Request>, pattern: RegExp) {
  assert.throws(
    () => validateSendEmail({ ...ok, ...change }),
    (err: unknown) => err instanceof InvalidArgument && pattern.test(err.message),
  );
}

describe('SendEmail validation', () => {
  test('a good request becomes the stored form', () => {
    const now = new Date('2026-03-02T01:00:00Z');
    const msg = validateSendEmail({ ...ok, recipient: '  dokter@rs-sehat.example ' }, now);
    assert.deepEqual(msg, {
      idempotencyKey: ok.idempotencyKey,
      recipient: 'dokter@rs-sehat.example',
      template: 'sign_in_otp',
      locale: 'id',
      parameters: ok.parameters,
      validUntil: new Date('2026-03-02T01:05:00Z'),
    });
  });

  test('locale defaults to Bahasa Indonesia and accepts region tags', () => {
    assert.equal(validateSendEmail({ ...ok, locale: '' }).locale, 'id');
    assert.equal(validateSendEmail({ ...ok, locale: 'en-US' }).locale, 'en');
    assert.equal(validateSendEmail({ ...ok, locale: 'id_ID' }).locale, 'id');
    rejects({ locale: 'fr' }, /^locale must be "id"/);
  });

  test('only OTPs and magic links expire', () => {
    const now = new Date('2026-03-02T01:00:00Z');
    const link = validateSendEmail(
      { ...ok, template: Template.MAGIC_LINK, parameters: { url: 'https://a.example/x', expires_minutes: '15' } },
      now,
    );
    assert.deepEqual(link.validUntil, new Date('2026-03-02T01:15:00Z'));
    const invite = validateSendEmail({ ...ok, template: Template.INVITATION, parameters: { url: 'https://a.example/i' } }, now);
    assert.equal(invite.validUntil, null);
  });

  test('recipient: required, one plain valid address', () => {
    rejects({ recipient: '' }, /^recipient is required/);
    rejects({ recipient: 'not-an-address' }, /^recipient is not a valid e-mail address/);
    rejects({ recipient: 'a@b.example, c@d.example' }, /recipient is not a valid/);
    rejects({ recipient: 'Ayu <a@b.example>' }, /recipient is not a valid/);
    rejects({ recipient: 'a@b.example\r\nBcc: x@y.example' }, /recipient is not a valid/);
    rejects({ recipient: 'a@localhost' }, /recipient is not a valid/);
  });

  test('the error message never repeats a rejected value', () => {
    assert.throws(
      () => validateSendEmail({ ...ok, recipient: 'secret-person@@x', parameters: { otp: 'abc123' } }),
      (err: Error) => !err.message.includes('secret-person') && !err.message.includes('abc123'),
    );
  });

  test('template: required and known', () => {
    rejects({ template: Template.UNSPECIFIED }, /^template is required/);
    rejects({ template: 99 as Template }, /^template is not a known template/);
  });

  test('idempotency key: required, bounded, printable', () => {
    rejects({ idempotencyKey: '' }, /^idempotency_key is required/);
    rejects({ idempotencyKey: 'x'.repeat(201) }, /^idempotency_key is longer than 200/);
    rejects({ idempotencyKey: 'has space' }, /^idempotency_key must be printable ASCII/);
  });

  test('names every object inherits are not parameters of any template', () => {
    for (const name of [...Object.getOwnPropertyNames(Object.prototype), 'prototype'].filter((n) => n !== '__proto__'))
      rejects({ parameters: { otp: '1234', [name]: 'x' } }, new RegExp(`^parameter "${name}" is not a parameter of template sign_in_otp`));
    // zod's record parser drops __proto__ (it never reaches a template) rather than naming it.
    const msg = validateSendEmail({ ...ok, parameters: { otp: '1234', ['__proto__']: 'x' } });
    assert.deepEqual(Object.keys(msg.parameters), ['otp']);
    rejects({ parameters: { otp: '1234', tenant_name: 'RS', user_name: 'x', constructor: 'x' } }, /"constructor" is not a parameter/);
  });

  test('parameters: required ones, known ones, formats', () => {
    rejects({ parameters: { tenant_name: 'RS' } }, /^parameter "otp" is required for template sign_in_otp/);
    rejects({ parameters: { otp: '12ab' } }, /^parameter "otp" must be 4 to 10 digits/);
    rejects({ parameters: { otp: '1234', colour: 'red' } }, /^parameter "colour" is not a parameter of template sign_in_otp \(known: /);
    rejects({ parameters: { otp: '1234', tenant_name: 'RS\nBcc: x' } }, /^parameter "tenant_name" contains control characters/);
    rejects({ parameters: { otp: '1234', expires_minutes: '0' } }, /expires_minutes" must be a whole number/);
    rejects(
      { template: Template.MAGIC_LINK, parameters: { url: 'javascript:alert(1)' } },
      /^parameter "url" must be an absolute http or https URL/,
    );
    rejects(
      { template: Template.SECURITY_NOTICE, parameters: { event: 'hacked' } },
      /^parameter "event" must be one of passkey_added, other_sessions_revoked/,
    );
    rejects(
      { template: Template.SECURITY_NOTICE, parameters: { event: 'passkey_added', time_zone: 'Mars/Base' } },
      /^parameter "time_zone" must be an IANA time zone/,
    );
    rejects(
      { template: Template.SECURITY_NOTICE, parameters: { event: 'passkey_added', occurred_at: 'yesterday' } },
      /^parameter "occurred_at" must be an RFC 3339 timestamp/,
    );
  });

  test('parameters: at most 50 entries and 8 KiB', () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, 'x']));
    rejects({ parameters: many }, /^parameters has more than 50 entries/);
    rejects({ parameters: { otp: '1234', tenant_name: 'x'.repeat(9000) } }, /^parameters are larger than 8192 bytes in all/);
    // Within the total but over the field's own limit.
    rejects({ parameters: { otp: '1234', tenant_name: 'x'.repeat(300) } }, /^parameter "tenant_name" is longer than 200/);
  });

  test('every problem is reported at once', () => {
    assert.throws(
      () => validateSendEmail({ idempotencyKey: '', recipient: '', template: Template.UNSPECIFIED, locale: 'xx', parameters: {} }),
      (err: Error) => /idempotency_key is required; recipient is required; template is required; locale must be/.test(err.message),
    );
  });
});
