// The worker in process against a real Postgres, with a scripted send function: the paths that are
// awkward to reach through a real SMTP peer (expiry, a lease lost on the last attempt, shutdown with
// a send that hangs).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPool, migrate } from '@simrs/platform/db';
import type { Pool } from '@simrs/platform/db';
import { createLogger } from '@simrs/platform/logger';
import { startRelay, throwawayDatabase, waitFor } from '@simrs/platform/testing';
import { migrationsDir } from '../db/index.ts';
import type { OutgoingMail, Send } from '../mail/index.ts';
import { createMetrics } from '../server/index.ts';
import { claim, enqueue, findDelivery, stats } from './store.ts';
import type { ValidMessage } from './validation.ts';
import { createWorker } from './worker.ts';

const log = createLogger('test', 'silent');

const message = (key: string, validUntil: Date | null = null): ValidMessage => ({
  idempotencyKey: key,
  recipient: 'dokter@rs-sehat.example',
  template: 'magic_link',
  locale: 'en',
  parameters: { url: 'https://simrs.example/verify?token=abc' },
  validUntil,
});

describe('delivery worker', { timeout: 60_000 }, () => {
  let db: Awaited<ReturnType<typeof throwawayDatabase>>;
  let pool: Pool;

  before(async () => {
    db = await throwawayDatabase('notifier_worker');
    pool = createPool(db.url);
    await migrate(pool, migrationsDir, log);
  });

  after(async () => {
    await pool.end();
    await db.drop();
  });

  function worker(send: Send, maxAttempts = 3, via = pool, { leaseMs = 200, concurrency = 2 } = {}) {
    return createWorker({
      pool: via,
      send,
      log,
      metrics: createMetrics(() => stats(pool)),
      retry: { maxAttempts, baseMs: 20, maxMs: 40 },
      leaseMs,
      pollMs: 20,
      concurrency,
      retentionDays: 30,
    });
  }

  test('renders and sends with a stable Message-ID and the delivery id header', async () => {
    const sent: OutgoingMail[] = [];
    const w = worker(async (mail) => (sent.push(mail), { response: '250 ok' }));
    const { id } = await enqueue(pool, message('ok'), 'simrs.example', null);
    w.start();
    await waitFor('sent', async () => (await findDelivery(pool, { id }))?.state === 'sent');
    await w.stop();
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.messageId, `<${id}@simrs.example>`);
    assert.equal(sent[0]!.deliveryId, id);
    assert.equal(sent[0]!.to, 'dokter@rs-sehat.example');
    assert.equal(sent[0]!.subject, 'Your SIMRS sign-in link');
  });

  test('a slow send keeps its lease: a second worker never sends the same message', async () => {
    // A peer that takes longer than the lease to answer (a loaded machine, a slow relay) is alive,
    // not dead: its worker renews the lease while it waits, so no other replica claims the message.
    let sends = 0;
    const slow: Send = async () => {
      sends++;
      await new Promise((r) => setTimeout(r, 900));
      return { response: '250 ok' };
    };
    const [a, b] = [worker(slow), worker(slow)];
    const { id } = await enqueue(pool, message('slow'), 'simrs.example', null);
    a.start();
    await waitFor('claimed', async () => sends === 1);
    b.start();
    await waitFor('sent', async () => (await findDelivery(pool, { id }))?.state === 'sent');
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all([a.stop(), b.stop()]);
    assert.equal(sends, 1);
  });

  test('an expired sign-in link is dead-lettered, not sent', async () => {
    let calls = 0;
    const w = worker(async () => (calls++, { response: '250 ok' }));
    const { id } = await enqueue(pool, message('expired', new Date(Date.now() - 1_000)), 'simrs.example', null);
    w.start();
    const d = await waitFor('dead', async () => {
      const row = await findDelivery(pool, { id });
      return row?.state === 'dead' ? row : undefined;
    });
    await w.stop();
    assert.equal(calls, 0);
    assert.equal(d.last_error, 'expired before it could be sent');
  });

  test('a message whose worker died during the last attempt is dead-lettered, not sent again', async () => {
    let calls = 0;
    const { id } = await enqueue(pool, message('lost'), 'simrs.example', null);
    // Three attempts, each "crashing" (the lease is simply left to run out).
    for (let i = 0; i < 3; i++) {
      await waitFor('due', async () => (await claim(pool, 1, 50)).length === 1);
    }
    await new Promise((r) => setTimeout(r, 60));
    const w = worker(async () => (calls++, { response: '250 ok' }), 3);
    w.start();
    const d = await waitFor('dead', async () => {
      const row = await findDelivery(pool, { id });
      return row?.state === 'dead' ? row : undefined;
    });
    await w.stop();
    assert.equal(calls, 0);
    assert.match(d.last_error ?? '', /worker lost during attempt 3; outcome unknown/);
  });

  test('stop() aborts a send that outlives the grace period; the message is retried later', async () => {
    let started = false;
    const w = worker(
      (_mail, signal) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { code: 'EABORT' })));
        }),
    );
    const { id } = await enqueue(pool, message('hang'), 'simrs.example', null);
    w.start();
    await waitFor('the send to start', async () => started);
    const t0 = Date.now();
    await w.stop(100);
    assert.ok(Date.now() - t0 < 2_000);
    const d = await findDelivery(pool, { id });
    assert.equal(d?.state, 'queued');
    assert.equal(d?.attempts, 1);
    assert.match(d?.last_error ?? '', /EABORT/);
  });

  // The database goes away just after the peer's 250 and stays away longer than the lease (a failover,
  // a restart in crash recovery). The mail is out, so it may only ever be recorded as sent: not put back
  // for a retry, and not taken over when the store returns, by its own worker or by another replica,
  // whether that one waited through the outage or started just as the store came back.
  const second = {
    'one replica': undefined,
    'a second replica through the outage': 'during',
    'a second started as the store returns': 'after',
  };
  for (const [label, secondStarts] of Object.entries(second)) {
    test(`the database away longer than the lease right after a 250: recorded when it returns, never sent twice (${label})`, async () => {
      const relay = await startRelay(db.url);
      const pools = Array.from({ length: secondStarts ? 2 : 1 }, () => createPool(relay.url, { connectionTimeoutMillis: 500 }));
      const sent: string[] = []; // delivery ids, one per send
      const send: Send = async (mail) => {
        if (sent.push(mail.deliveryId) === 1) relay.down();
        return { response: '250 ok' };
      };
      const workers = pools.map((p) => worker(send, 3, p));
      try {
        const { id } = await enqueue(pool, message(`away-${label}`), 'simrs.example', null);
        workers[0]!.start();
        await waitFor('the first send', async () => sent.length > 0);
        if (secondStarts === 'during') workers[1]!.start();
        await new Promise((r) => setTimeout(r, 1_000)); // five leases
        relay.up();
        if (secondStarts === 'after') workers[1]!.start();
        await waitFor('sent', async () => (await findDelivery(pool, { id }))?.state === 'sent');
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(
          sent.filter((d) => d === id),
          [id],
        );
        assert.equal(new Set(sent).size, sent.length, 'no message sent twice');
        assert.equal((await findDelivery(pool, { id }))?.attempts, 1);
      } finally {
        await Promise.all(workers.map((w) => w.stop(100)));
        await Promise.all(pools.map((p) => p.end()));
        await relay.stop();
      }
    });
  }

  test("a replica whose every slot was busy through the outage does not take over a live holder's send either", async () => {
    // Replica B never claims during the outage (its one slot is taken by a send that outlasts it), so
    // only its failed lease renewals tell it the store was away; it must still leave A time to record.
    const relay = await startRelay(db.url);
    const [poolA, poolB] = [0, 1].map(() => createPool(relay.url, { connectionTimeoutMillis: 500 }));
    const sent: string[] = [];
    let openGate = () => {};
    const gate = new Promise<void>((r) => (openGate = r));
    const sendB: Send = async (mail) => (sent.push(mail.deliveryId), await gate, { response: '250 ok' });
    const sendA: Send = async (mail) => (sent.push(mail.deliveryId), relay.down(), { response: '250 ok' });
    const b = worker(sendB, 3, poolB!, { leaseMs: 2_000, concurrency: 1 });
    const a = worker(sendA, 3, poolA!, { leaseMs: 2_000, concurrency: 1 });
    try {
      const mine = await enqueue(pool, message('busy-b'), 'simrs.example', null);
      b.start();
      await waitFor('B busy with its own send', async () => sent.length === 1);
      const theirs = await enqueue(pool, message('busy-a'), 'simrs.example', null);
      a.start();
      await waitFor("A's send", async () => sent.length === 2);
      await new Promise((r) => setTimeout(r, 2_500)); // longer than the lease
      relay.up();
      openGate();
      for (const { id } of [mine, theirs]) await waitFor('sent', async () => (await findDelivery(pool, { id }))?.state === 'sent');
      await new Promise((r) => setTimeout(r, 1_500));
      assert.deepEqual(sent.sort(), [mine.id, theirs.id].sort());
    } finally {
      openGate();
      await Promise.all([a.stop(100), b.stop(100)]);
      await Promise.all([poolA!.end(), poolB!.end()]);
      await relay.stop();
    }
  });
});
