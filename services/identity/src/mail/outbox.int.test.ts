// The mail outbox against the real processes (identity, the notifier, an SMTP peer): a sign-in mail
// accepted while the notifier is down is delivered once it is back, exactly once; a hand-off that
// cannot be stored answers 503 and does not spend the address's send budget.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startFixture } from '../testing/index.ts';
import type { Fixture } from '../testing/index.ts';

describe('mail outbox', () => {
  let f: Fixture;
  let db: pg.Client;

  before(async () => {
    f = await startFixture('outbox', { OTP_SENDS_PER_ADDRESS_PER_HOUR: '2' });
    db = new pg.Client({ connectionString: f.db.url });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await f?.stop();
  });

  test('a code and a link asked for while the notifier is down arrive once it is back, exactly once', async () => {
    await f.notifier.stop('SIGKILL');
    const since = f.smtp.messages.length;
    const otp = await f.client().post('/api/auth/email-otp/send-verification-otp', { email: 'dokter@rs-demo.test', type: 'sign-in' });
    assert.equal(otp.status, 200);
    const link = await f.client().post('/api/auth/sign-in/magic-link', { email: 'perawat@rs-demo.test' });
    assert.equal(link.status, 200);
    await sleep(1500); // the relay tries (and fails) meanwhile
    await f.restartNotifier();
    await f.smtp.waitForMail('dokter@rs-demo.test', since, undefined, 20_000);
    await f.smtp.waitForMail('perawat@rs-demo.test', since, undefined, 20_000);
    await sleep(1500);
    const delivered = f.smtp.messages.slice(since);
    assert.equal(delivered.filter((m) => m.to.includes('dokter@rs-demo.test')).length, 1);
    assert.equal(delivered.filter((m) => m.to.includes('perawat@rs-demo.test')).length, 1);
    // Nothing is kept once the notifier has the mail: no code lingers in identity's database.
    assert.equal((await db.query('select count(*)::int as n from mail_outbox')).rows[0].n, 0);
  });

  test('known and unknown addresses get the same answer while the notifier is down', async () => {
    await f.notifier.stop('SIGKILL');
    try {
      const known = await f.client().post('/api/auth/sign-in/magic-link', { email: 'auditor@rs-demo.test' });
      const unknown = await f.client().post('/api/auth/sign-in/magic-link', { email: 'nobody@rs-demo.test' });
      assert.equal(known.status, 200);
      assert.equal(unknown.status, 200);
      assert.deepEqual(await known.json(), await unknown.json());
    } finally {
      await f.restartNotifier();
    }
  });

  test('a hand-off that cannot be stored answers 503 with Retry-After and spends no send budget', async () => {
    const email = 'pendaftaran@rs-demo.test';
    await db.query('alter table mail_outbox rename to mail_outbox_away');
    try {
      for (let i = 0; i < 3; i++) {
        const res = await f.client().post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' });
        assert.equal(res.status, 503);
        assert.ok(Number(res.headers.get('retry-after')) > 0);
      }
    } finally {
      await db.query('alter table mail_outbox_away rename to mail_outbox');
    }
    const since = f.smtp.messages.length;
    const res = await f.client().post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' });
    assert.equal(res.status, 200, 'the budget of 2 per hour is untouched by the failed hand-offs');
    await f.smtp.waitForMail(email, since, undefined, 20_000);
  });
});
