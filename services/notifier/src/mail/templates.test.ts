import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { escapeHtml, LOCALES, PARAMETERS, render, TEMPLATE_NAMES } from './templates.ts';
import type { Locale, TemplateName } from './templates.ts';

const createdAt = new Date('2026-03-02T01:30:00Z');
const tenant = 'RSUD Sehat Sentosa';

const params: Record<TemplateName, Record<string, string>> = {
  sign_in_otp: { otp: '482913', tenant_name: tenant, user_name: 'dr. Ayu' },
  magic_link: { url: 'https://app.simrs.example/api/auth/magic-link/verify?token=abc&x=1', tenant_name: tenant },
  invitation: { url: 'https://app.simrs.example/invite/xyz', tenant_name: tenant, inviter_name: 'Budi', role: 'perawat' },
  security_notice: { event: 'passkey_added', tenant_name: tenant, passkey_name: 'iPhone', occurred_at: '2026-03-02T08:00:00+07:00' },
};

// What each rendering must say, per template and language: subject and one sentence of the body.
const expected: Record<TemplateName, Record<Locale, { subject: string; body: string }>> = {
  sign_in_otp: {
    id: { subject: `Kode masuk ${tenant} Anda`, body: 'Gunakan kode berikut untuk masuk' },
    en: { subject: `Your ${tenant} sign-in code`, body: 'Use this code to sign in to' },
  },
  magic_link: {
    id: { subject: `Tautan masuk ${tenant} Anda`, body: 'Klik tombol di bawah ini untuk masuk' },
    en: { subject: `Your ${tenant} sign-in link`, body: 'Use the button below to sign in' },
  },
  invitation: {
    id: { subject: `Undangan bergabung dengan ${tenant}`, body: 'Budi mengundang Anda untuk bergabung' },
    en: { subject: `Invitation to join ${tenant}`, body: 'Budi invited you to join' },
  },
  security_notice: {
    id: { subject: `Passkey baru ditambahkan ke akun ${tenant} Anda`, body: 'Passkey baru (iPhone) telah ditambahkan' },
    en: { subject: `A new passkey was added to your ${tenant} account`, body: 'A new passkey (iPhone) was added' },
  },
};

describe('templates', () => {
  for (const template of TEMPLATE_NAMES) {
    for (const locale of LOCALES) {
      test(`${template} in ${locale}: subject, text and HTML`, () => {
        const out = render(template, locale, params[template], { createdAt });
        const want = expected[template][locale];
        assert.equal(out.subject, want.subject);
        assert.ok(out.text.includes(want.body), out.text);
        assert.ok(out.html.includes(escapeHtml(want.body)), out.html);
        assert.ok(out.html.startsWith('<!doctype html>'));
        assert.ok(out.html.includes(`<html lang="${locale}">`));
        assert.ok(out.text.includes(tenant) && out.html.includes(tenant), 'tenant name in both bodies');
        // The footer is in the same language.
        assert.ok(out.text.includes(locale === 'id' ? 'Mohon jangan membalas' : 'Please do not reply'));
        // No tags in the text part, no leftover placeholders anywhere.
        assert.doesNotMatch(out.text, /<[a-z]/i);
        assert.doesNotMatch(out.text + out.html, /undefined|\$\{/);
        for (const [name, value] of Object.entries(params[template])) {
          if (name === 'occurred_at' || name === 'event') continue;
          assert.ok(out.text.includes(value), `text has ${name}`);
          assert.ok(out.html.includes(escapeHtml(value)), `html has ${name}`);
        }
      });
    }
  }

  test('the OTP is in the body, never in the subject', () => {
    for (const locale of LOCALES) {
      const out = render('sign_in_otp', locale, { otp: '482913' }, { createdAt });
      assert.ok(!out.subject.includes('482913'));
      assert.ok(out.text.includes('    482913'));
    }
  });

  test('links are the href of a button and printed in full in the text part', () => {
    const url = params.magic_link.url!;
    const out = render('magic_link', 'en', params.magic_link, { createdAt });
    assert.ok(out.html.includes(`href="${escapeHtml(url)}"`));
    assert.ok(out.html.includes('&amp;x=1'));
    assert.ok(out.text.includes(url));
    assert.ok(out.text.includes('valid for 5 minutes'));
  });

  test('expires_minutes changes the stated validity', () => {
    const out = render('sign_in_otp', 'id', { otp: '1234', expires_minutes: '10' }, { createdAt });
    assert.ok(out.text.includes('berlaku selama 10 menit'));
  });

  test('the security notice covers both events and formats the time in the reader language and zone', () => {
    const revoked = { event: 'other_sessions_revoked', tenant_name: tenant, url: 'https://app.simrs.example/security' };
    const id = render('security_notice', 'id', revoked, { createdAt });
    const en = render('security_notice', 'en', revoked, { createdAt });
    assert.equal(id.subject, `Sesi lain di akun ${tenant} Anda telah dikeluarkan`);
    assert.equal(en.subject, `Your other ${tenant} sessions were signed out`);
    // createdAt 01:30 UTC is 08:30 in Jakarta (WIB).
    assert.match(id.text, /2 Maret 2026.*08[.:]30/);
    assert.match(en.text, /2 March 2026.*08:30/);
    assert.ok(id.html.includes('Periksa keamanan akun') && en.html.includes('Review account security'));
    const makassar = render('security_notice', 'en', { ...revoked, time_zone: 'Asia/Makassar' }, { createdAt });
    assert.match(makassar.text, /09:30/);
  });

  test('without a tenant name the product name stands in', () => {
    const out = render('sign_in_otp', 'en', { otp: '1234' }, { createdAt });
    assert.equal(out.subject, 'Your SIMRS sign-in code');
    assert.ok(out.text.startsWith('Hello,'));
  });

  test('every parameter is HTML-escaped', () => {
    const evil = `<script>alert("x")</script>&'`;
    const out = render(
      'invitation',
      'en',
      { url: 'https://x.example/"><script>', tenant_name: evil, inviter_name: evil, role: evil, user_name: evil },
      { createdAt },
    );
    assert.ok(!out.html.includes('<script>'), out.html);
    assert.ok(out.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;'));
    assert.ok(out.html.includes('href="https://x.example/&quot;&gt;&lt;script&gt;"'));
    // The text part is plain text: values as given.
    assert.ok(out.text.includes(evil));
  });

  test('every template declares the common parameters', () => {
    for (const template of TEMPLATE_NAMES) {
      assert.ok(PARAMETERS[template].tenant_name && PARAMETERS[template].user_name);
    }
  });
});
