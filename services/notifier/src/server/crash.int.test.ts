// Exactly once across a crash: messages are acknowledged while the SMTP peer is down, the notifier is
// killed with SIGKILL (no chance to clean up, some messages leased mid-attempt), then the peer and
// two notifier replicas come back. Every acknowledged message must arrive exactly once, counted by
// Message-ID at the real SMTP peer. Also: SIGTERM lets the send in flight finish before exiting.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { Health, HealthCheckResponse_ServingStatus } from '@simrs/proto/gen/grpc/health/v1/health_pb';
import { DeliveryState, Template } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { createClient, grpc, isStatus } from '@simrs/proto/grpc';
import { throwawayDatabase, waitFor } from '@simrs/platform/testing';
import { smtpPeer, startNotifier } from '../testing/index.ts';
import type { RunningNotifier } from '../testing/index.ts';

describe('notifier across SIGKILL (real SMTP peer, real Postgres)', { timeout: 120_000 }, () => {
  const peer = smtpPeer();
  let db: Awaited<ReturnType<typeof throwawayDatabase>>;
  const running: RunningNotifier[] = [];
  let env: Record<string, string>;

  before(async () => {
    db = await throwawayDatabase('notifier_crash');
    // Reserve the peer's port, then take the peer down: connections are refused until it returns.
    await peer.start();
    await peer.stop();
    // Plenty of attempts (nothing may be dead-lettered while the peer is down), short leases.
    env = { DATABASE_URL: db.url, SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_MAX_ATTEMPTS: '100' };
  });

  after(async () => {
    await Promise.all(running.map((n) => n.stop('SIGKILL')));
    await peer.stop();
    await db?.drop();
  });

  test('messages acknowledged before a SIGKILL arrive exactly once after restart', async () => {
    const first = await startNotifier('notifier-1', env);
    running.push(first);
    const n = 40;
    const acked = new Map<string, string>();
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const key = `crash-${i}`;
        const r = await first.client.sendEmail({
          idempotencyKey: key,
          recipient: `pasien.${i}@rs-crash.example`,
          template: i % 2 ? Template.SIGN_IN_OTP : Template.MAGIC_LINK,
          locale: i % 3 ? 'id' : 'en',
          parameters: i % 2 ? { otp: String(100000 + i) } : { url: `https://simrs.example/verify?token=t${i}` },
        });
        acked.set(key, r.deliveryId);
      }),
    );
    assert.equal(acked.size, n);

    // Let the worker fail against the dead peer for a while, so rows are in every state.
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      await waitFor('failed attempts against the dead peer', async () => {
        const { rows } = await sql.query(`select count(*)::int as n from deliveries where attempts >= 2`);
        return rows[0].n >= n / 2;
      });
      // Now the peer's port accepts connections and never answers (a hung server): attempts stay
      // in flight until SMTP_TIMEOUT_MS, so the kill lands while messages are leased mid-attempt.
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => sockets.add(socket.on('close', () => sockets.delete(socket))));
      await new Promise<void>((resolve) => silent.listen(peer.port, '127.0.0.1', resolve));
      try {
        await waitFor('attempts hanging on the silent peer', async () => {
          const { rows } = await sql.query(`select count(*)::int as n from deliveries where state = 'sending'`);
          return sockets.size >= 2 && rows[0].n >= 2;
        });
        await first.stop('SIGKILL');
        running.splice(running.indexOf(first), 1);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
      const states = Object.fromEntries(
        (await sql.query(`select state, count(*)::int as n from deliveries group by state`)).rows.map((r) => [r.state, r.n]),
      );
      assert.ok(states.sending >= 2, `leased rows left behind by the killed process: ${JSON.stringify(states)}`);
      assert.equal(states.sending + (states.queued ?? 0), n, JSON.stringify(states));
      assert.equal(peer.received.length, 0);
    } finally {
      await sql.end();
    }

    // The peer and two replicas come back; leases left by the killed process run out (MAIL_LEASE_MS).
    await peer.start();
    const [x, y] = await Promise.all([startNotifier('notifier-2', env), startNotifier('notifier-3', env)]);
    running.push(x!, y!);
    await waitFor('every acknowledged message at the peer', async () => new Set(peer.received.map((m) => m.deliveryId)).size === n, 30_000);
    // Longer than a lease plus a retry, so a late duplicate would have time to show up.
    await new Promise((r) => setTimeout(r, Number(env.MAIL_LEASE_MS ?? 2_000) + 1_000));

    const counts = peer.counts();
    for (const [key, id] of acked) {
      const mails = peer.received.filter((m) => m.deliveryId === id);
      assert.equal(mails.length, 1, `${key} arrived ${mails.length} times`);
      assert.equal(counts.get(mails[0]!.messageId), 1);
      const d = await x!.client.getDelivery({ idempotencyKey: key });
      assert.equal(d.state, DeliveryState.SENT, key);
    }
    assert.equal(peer.received.length, n);
  });

  test('SIGTERM finishes the send in flight, then exits cleanly', async () => {
    // Only this process may pick the message up.
    await Promise.all(running.splice(0).map((n) => n.stop('SIGTERM')));
    const notifier = await startNotifier('notifier-term', env);
    running.push(notifier);
    const r = await notifier.client.sendEmail({
      idempotencyKey: 'term-1',
      recipient: 'slow-600@rs-crash.example',
      template: Template.INVITATION,
      locale: 'id',
      parameters: { url: 'https://simrs.example/i/term' },
    });
    const { messageId } = await notifier.client.getDelivery({ deliveryId: r.deliveryId });
    // The peer holds its 250 for 600 ms; stop the process while it waits.
    await waitFor('the peer to have the message', async () => peer.attempts.has(messageId), 5_000, 5);
    const code = await notifier.stop('SIGTERM');
    running.splice(running.indexOf(notifier), 1);
    assert.equal(code, 0, notifier.proc.lines.join('\n'));
    assert.equal(peer.received.filter((m) => m.deliveryId === r.deliveryId).length, 1);
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      const { rows } = await sql.query('select state, attempts from deliveries where id = $1', [r.deliveryId]);
      assert.deepEqual(rows[0], { state: 'sent', attempts: 1 });
    } finally {
      await sql.end();
    }
  });

  test('readiness follows the store (not SMTP); a lost store answers UNAVAILABLE', async () => {
    await peer.stop();
    const notifier = await startNotifier('notifier-store', env);
    running.push(notifier);
    // Ready with the SMTP peer down: mail is queued durably and sent when it returns.
    assert.equal((await fetch(`${notifier.http}/readyz`)).status, 200);
    const queued = await notifier.client.sendEmail({
      idempotencyKey: 'store-1',
      recipient: 'x@rs-crash.example',
      template: Template.INVITATION,
      locale: 'en',
      parameters: { url: 'https://simrs.example/i/s' },
    });
    assert.equal(queued.created, true);
    // The database goes away (dropped, connections killed).
    await db.drop();
    await waitFor('readiness to turn false', async () => (await fetch(`${notifier.http}/readyz`)).status === 503);
    const health = createClient(Health, `127.0.0.1:${notifier.grpcPort}`);
    try {
      assert.equal((await health.check({ service: '' })).status, HealthCheckResponse_ServingStatus.NOT_SERVING);
    } finally {
      health.close();
    }
    await assert.rejects(
      notifier.client.sendEmail({
        idempotencyKey: 'store-2',
        recipient: 'x@rs-crash.example',
        template: Template.INVITATION,
        locale: 'en',
        parameters: { url: 'https://simrs.example/i/s' },
      }),
      (err) => isStatus(err, grpc.status.UNAVAILABLE),
    );
    // Still alive: only readiness is affected.
    assert.equal((await fetch(`${notifier.http}/healthz`)).status, 200);
  });
});
