// The notifier as two real processes (two replicas) on one throwaway Postgres database, sending to a
// real SMTP peer, called over gRPC: delivery, idempotency across replicas, retries on 4xx,
// dead letters on 5xx and after too many attempts, bad requests, health and metrics, no secrets in logs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { isStatus, grpc } from '@simrs/proto/grpc';
import { createClient } from '@simrs/proto/grpc';
import { Health, HealthCheckResponse_ServingStatus } from '@simrs/proto/gen/grpc/health/v1/health_pb';
import { DeliveryState, Template } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { throwawayDatabase, waitFor } from '@simrs/platform/testing';
import { smtpPeer, startNotifier } from '../testing/index.ts';
import type { RunningNotifier } from '../testing/index.ts';

describe('notifier delivery (two replicas, real SMTP peer)', { timeout: 120_000 }, () => {
  const peer = smtpPeer();
  let db: Awaited<ReturnType<typeof throwawayDatabase>>;
  let sql: pg.Client;
  let a: RunningNotifier;
  let b: RunningNotifier;
  // Values that must never appear in a log line.
  const secrets = new Set<string>();

  before(async () => {
    db = await throwawayDatabase('notifier');
    await peer.start();
    const env = { DATABASE_URL: db.url, SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_MAX_ATTEMPTS: '4' };
    // Started one after the other: the second finds the schema migrated by the first.
    a = await startNotifier('notifier-a', env);
    b = await startNotifier('notifier-b', env);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sql?.end();
    await peer.stop();
    await db?.drop();
  });

  const rows = async () => Number((await sql.query('select count(*) from deliveries')).rows[0].count);

  async function settled(key: string, client = a.client) {
    return waitFor(`delivery ${key} to settle`, async () => {
      const d = await client.getDelivery({ idempotencyKey: key });
      return d.state === DeliveryState.SENT || d.state === DeliveryState.DEAD ? d : undefined;
    });
  }

  test('an OTP is stored, sent once, and reported SENT', async () => {
    const otp = '918273';
    const to = 'ayu.otp@rs-sehat.example';
    secrets.add(otp).add(to);
    const sent = await a.client.sendEmail({
      idempotencyKey: 'otp-1',
      recipient: to,
      template: Template.SIGN_IN_OTP,
      locale: 'en',
      parameters: { otp, tenant_name: 'RSUD Sehat' },
    });
    assert.equal(sent.created, true);
    assert.match(sent.deliveryId, /^[0-9a-f-]{36}$/);
    const d = await settled('otp-1');
    assert.equal(d.state, DeliveryState.SENT);
    assert.equal(d.attempts, 1);
    assert.ok(d.sentAt);
    const mail = peer.received.find((m) => m.deliveryId === sent.deliveryId);
    assert.ok(mail, 'arrived at the peer');
    assert.equal(mail.to, to);
    assert.equal(mail.subject, 'Your RSUD Sehat sign-in code');
    assert.ok(mail.text.includes(otp) && mail.html.includes(otp));
    assert.equal(mail.messageId, d.messageId);
    assert.equal(mail.headers['auto-submitted'], 'auto-generated');
    assert.equal(mail.from, 'no-reply@simrs.example');
    // After delivery the store keeps neither the OTP nor the full address.
    const row = (await sql.query('select recipient, parameters from deliveries where id = $1', [sent.deliveryId])).rows[0];
    assert.deepEqual(row, { recipient: 'a***@rs-sehat.example', parameters: {} });
  });

  test('the same idempotency key, sent twice to each of two replicas at once, gives one mail', async () => {
    const to = 'budi.dup@rs-sehat.example';
    secrets.add(to);
    const request = {
      idempotencyKey: 'invite-dup',
      recipient: to,
      template: Template.INVITATION,
      locale: 'id',
      parameters: { url: 'https://simrs.example/invite/s3cr3t-token', tenant_name: 'RS Harapan' },
    };
    secrets.add('s3cr3t-token');
    const answers = await Promise.all([a, b, a, b].map((n) => n.client.sendEmail(request)));
    assert.equal(answers.filter((r) => r.created).length, 1);
    assert.equal(new Set(answers.map((r) => r.deliveryId)).size, 1);
    await settled('invite-dup');
    // A later repeat is a no-op too.
    const again = await b.client.sendEmail(request);
    assert.equal(again.created, false);
    assert.equal(again.state, DeliveryState.SENT);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(peer.received.filter((m) => m.deliveryId === answers[0]!.deliveryId).length, 1);
  });

  test('a burst through both replicas: every message exactly once', async () => {
    const n = 60;
    const ids = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        (i % 2 ? a : b).client
          .sendEmail({
            idempotencyKey: `burst-${i}`,
            recipient: `user${i}@rs-burst.example`,
            template: Template.MAGIC_LINK,
            locale: i % 3 ? 'id' : 'en',
            parameters: { url: `https://simrs.example/api/auth/magic-link/verify?token=t${i}` },
          })
          .then((r) => r.deliveryId),
      ),
    );
    await waitFor('the burst to arrive', async () => ids.every((id) => peer.received.some((m) => m.deliveryId === id)), 30_000);
    await new Promise((r) => setTimeout(r, 300));
    for (const id of ids) assert.equal(peer.received.filter((m) => m.deliveryId === id).length, 1, id);
    // Both replicas took part.
    const sentBy = (x: RunningNotifier) => x.proc.lines.filter((l) => l.includes('"message sent"')).length;
    assert.ok(sentBy(a) > 0 && sentBy(b) > 0, `a=${sentBy(a)} b=${sentBy(b)}`);
  });

  test('4xx on the first attempts: the mail arrives after retries', async () => {
    const sent = await a.client.sendEmail({
      idempotencyKey: 'retry-4xx',
      recipient: 'tempfail-2@rs-sehat.example',
      template: Template.SECURITY_NOTICE,
      locale: 'id',
      parameters: { event: 'passkey_added', passkey_name: 'YubiKey' },
    });
    const d = await settled('retry-4xx');
    assert.equal(d.state, DeliveryState.SENT);
    assert.equal(d.attempts, 3);
    assert.equal(peer.attempts.get(d.messageId), 3);
    assert.equal(peer.received.filter((m) => m.deliveryId === sent.deliveryId).length, 1);
  });

  test('5xx: dead-lettered at once, reported, never tried again', async () => {
    for (const [key, to] of [
      ['dead-rcpt', 'reject-me@rs-sehat.example'],
      ['dead-data', 'spam-me@rs-sehat.example'],
    ] as const) {
      await b.client.sendEmail({
        idempotencyKey: key,
        recipient: to,
        template: Template.SIGN_IN_OTP,
        locale: 'en',
        parameters: { otp: '5555' },
      });
      const d = await settled(key, b.client);
      assert.equal(d.state, DeliveryState.DEAD, key);
      assert.equal(d.attempts, 1);
      assert.match(d.lastError, /^EENVELOPE: 550|^EMESSAGE: 554/);
      assert.ok(!d.lastError.includes('@'), 'no address in last_error');
    }
    // Several retry periods later there was still only one attempt each.
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(peer.rcptAttempts.get('reject-me@rs-sehat.example'), 1);
    const metrics = (await Promise.all([a, b].map((n) => fetch(`${n.http}/metrics`).then((r) => r.text())))).join('\n');
    assert.match(metrics, /^notifier_deliveries\{[^}]*state="dead"[^}]*\} 2$/m);
    const permanent = [...metrics.matchAll(/^notifier_dead_letters_total\{[^}]*reason="permanent"[^}]*\} (\d+)$/gm)];
    assert.equal(
      permanent.reduce((n, m) => n + Number(m[1]), 0),
      2,
      'summed over the replicas',
    );
  });

  test('4xx every time: dead-lettered after MAIL_MAX_ATTEMPTS', async () => {
    await a.client.sendEmail({
      idempotencyKey: 'never',
      recipient: 'never-works@rs-sehat.example',
      template: Template.INVITATION,
      locale: 'en',
      parameters: { url: 'https://simrs.example/i/1' },
    });
    const d = await settled('never');
    assert.equal(d.state, DeliveryState.DEAD);
    assert.equal(d.attempts, 4);
    assert.match(d.lastError, /451/);
    assert.equal(peer.attempts.get(d.messageId), 4);
  });

  test('bad requests: INVALID_ARGUMENT with a clear message, nothing stored', async () => {
    const before = await rows();
    const good = {
      idempotencyKey: 'bad',
      recipient: 'x@rs.example',
      template: Template.SIGN_IN_OTP,
      locale: 'id',
      parameters: { otp: '1234' } as Record<string, string>,
    };
    const cases: [Partial<typeof good>, RegExp][] = [
      [{ recipient: '' }, /^recipient is required$/],
      [{ recipient: 'not an address' }, /^recipient is not a valid e-mail address/],
      [{ template: Template.UNSPECIFIED }, /^template is required$/],
      [{ template: 42 as Template }, /^template is not a known template$/],
      [{ parameters: { otp: '1234', tenant_name: 'x'.repeat(9_000) } }, /^parameters are larger than 8192 bytes in all/],
      [{ parameters: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, /^parameters has more than 50 entries/],
      [{ parameters: {} }, /^parameter "otp" is required for template sign_in_otp$/],
      [{ idempotencyKey: '' }, /^idempotency_key is required$/],
    ];
    for (const [change, message] of cases) {
      await assert.rejects(a.client.sendEmail({ ...good, ...change }), (err: grpc.ServiceError) => {
        assert.equal(err.code, grpc.status.INVALID_ARGUMENT, err.message);
        assert.match(err.details, message);
        return true;
      });
    }
    assert.equal(await rows(), before);
    await assert.rejects(a.client.getDelivery({ idempotencyKey: 'nope' }), (err) => isStatus(err, grpc.status.NOT_FOUND));
    await assert.rejects(a.client.getDelivery({}), (err) => isStatus(err, grpc.status.INVALID_ARGUMENT));
  });

  test('health: HTTP and grpc.health.v1 follow the store', async () => {
    assert.equal((await fetch(`${a.http}/healthz`)).status, 200);
    const ready = await fetch(`${a.http}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ok', checks: { store: 'ok' } });
    const health = createClient(Health, `127.0.0.1:${a.grpcPort}`);
    try {
      for (const service of ['', 'simrs.notifier.v1.NotifierService']) {
        const r = await health.check({ service });
        assert.equal(r.status, HealthCheckResponse_ServingStatus.SERVING);
      }
    } finally {
      health.close();
    }
  });

  test('no log line carries an address, an OTP or a link', () => {
    const lines = [...a.proc.lines, ...b.proc.lines];
    assert.ok(lines.length > 10);
    for (const line of lines) {
      for (const s of secrets) assert.ok(!line.includes(s), `log line leaks ${s}: ${line}`);
      assert.doesNotMatch(line, /@rs-|token=|magic-link\/verify/, line);
    }
  });
});
