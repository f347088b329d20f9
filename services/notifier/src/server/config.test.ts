import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { schema, smtpSettings } from '../config.ts';

const base = { DATABASE_URL: 'postgres://u:p@db:5432/notifier', SMTP_URL: 'smtp://mailer:s3cret@smtp.example.org:587' };

test('defaults', () => {
  const cfg = schema.parse(base);
  assert.equal(cfg.grpcPort, 50052);
  assert.equal(cfg.httpPort, 4003);
  assert.equal(cfg.host, '0.0.0.0');
  assert.deepEqual(cfg.smtp, {
    host: 'smtp.example.org',
    port: 587,
    user: 'mailer',
    pass: 's3cret',
    tls: 'starttls',
    timeoutMs: 20_000,
    dataEndTimeoutMs: 600_000, // RFC 5321 4.5.3.2.6
  });
  assert.ok(
    schema.safeParse({ ...base, SMTP_TIMEOUT_MS: '30000', SMTP_DATA_END_TIMEOUT_MS: '20000' }).error,
    'data end shorter than the conversation',
  );
  assert.deepEqual(cfg.retry, { maxAttempts: 8, baseMs: 2_000, maxMs: 300_000 });
  assert.equal(cfg.from, 'SIMRS <no-reply@simrs.localhost>');
});

test('TLS mode: from the scheme and host unless SMTP_TLS says otherwise', () => {
  assert.equal(smtpSettings('smtps://u:p@mail.example.org', undefined, 1).tls, 'implicit');
  assert.equal(smtpSettings('smtps://u:p@mail.example.org', undefined, 1).port, 465);
  assert.equal(smtpSettings('smtp://mail.example.org', undefined, 1).tls, 'starttls');
  assert.equal(smtpSettings('smtp://127.0.0.1:1025', undefined, 1).tls, 'none');
  assert.equal(smtpSettings('smtp://localhost:1025', undefined, 1).tls, 'none');
  assert.equal(smtpSettings('smtp://mail.example.org', 'opportunistic', 1).tls, 'opportunistic');
  assert.equal(smtpSettings('smtp://a%40b:p%2Fq@[::1]:25', undefined, 1).host, '::1');
  assert.equal(smtpSettings('smtp://a%40b:p%2Fq@[::1]:25', undefined, 1).user, 'a@b');
  assert.equal(smtpSettings('smtp://a%40b:p%2Fq@[::1]:25', undefined, 1).pass, 'p/q');
});

test('bad values are refused', () => {
  const issues = (env: Record<string, string>) => {
    const r = schema.safeParse({ ...base, ...env });
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };
  assert.deepEqual(issues({ SMTP_URL: 'http://x' }), ['SMTP_URL']);
  assert.deepEqual(issues({ SMTP_TLS: 'maybe' }), ['SMTP_TLS']);
  assert.deepEqual(issues({ MAIL_FROM: 'nobody' }), ['MAIL_FROM']);
  assert.deepEqual(issues({ MAIL_RETRY_BASE_MS: '5000', MAIL_RETRY_MAX_MS: '1000' }), ['MAIL_RETRY_MAX_MS']);
  assert.deepEqual(issues({ SMTP_TIMEOUT_MS: '30000', MAIL_LEASE_MS: '40000' }), ['MAIL_LEASE_MS']);
});

test('the process stops with one line naming the variable, without its value', () => {
  const main = fileURLToPath(new URL('../main.ts', import.meta.url));
  const run = spawnSync(process.execPath, [main], {
    env: { PATH: process.env.PATH, DATABASE_URL: base.DATABASE_URL, SMTP_URL: 'ftp://user:hunter2@x' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(run.status, 1);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /^configuration error: SMTP_URL: must be a URL starting with smtp:\/\/ or smtps:\/\//);
  assert.ok(!run.stderr.includes('hunter2'));
});
