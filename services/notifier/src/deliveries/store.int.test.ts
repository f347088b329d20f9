// The store's SQL against a real Postgres: idempotent enqueue under concurrency, disjoint leases
// under concurrent claims (FOR UPDATE SKIP LOCKED), lease expiry, and lease-token guards.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPool, migrate } from '@simrs/platform/db';
import type { Pool } from '@simrs/platform/db';
import { createLogger } from '@simrs/platform/logger';
import { throwawayDatabase } from '@simrs/platform/testing';
import { migrationsDir } from '../db/index.ts';
import { claim, enqueue, findDelivery, markDead, markRetry, markSent, purge, stats } from './store.ts';
import type { ValidMessage } from './validation.ts';

const message = (key: string): ValidMessage => ({
  idempotencyKey: key,
  recipient: 'dokter@rs-sehat.example',
  template: 'sign_in_otp',
  locale: 'id',
  parameters: { otp: '123456' },
  validUntil: null,
});

describe('message store', { timeout: 60_000 }, () => {
  let db: Awaited<ReturnType<typeof throwawayDatabase>>;
  let pools: Pool[];

  before(async () => {
    db = await throwawayDatabase('notifier_store');
    // Separate pools stand in for separate replicas.
    pools = Array.from({ length: 4 }, () => createPool(db.url, { max: 4 }));
    await migrate(pools[0]!, migrationsDir, createLogger('test', 'silent'));
  });

  after(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await db.drop();
  });

  const reset = () => pools[0]!.query('delete from deliveries');

  test('one idempotency key, many concurrent enqueues: one row, one "created"', async () => {
    await reset();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => enqueue(pools[i % 4]!, message('same'), 'x.example', null)));
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.equal(new Set(results.map((r) => r.id)).size, 1);
    const d = await findDelivery(pools[0]!, { idempotencyKey: 'same' });
    assert.equal(d?.message_id, `<${d?.id}@x.example>`);
  });

  test('concurrent claimers never lease the same message', async () => {
    await reset();
    const n = 300;
    for (let i = 0; i < n; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => enqueue(pools[0]!, message(`m-${i + j}`), 'x.example', null)));
    const seen: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, w) => {
        for (;;) {
          const got = await claim(pools[w % 4]!, 7, 60_000);
          if (got.length === 0) return;
          seen.push(...got.map((d) => d.id));
        }
      }),
    );
    assert.equal(seen.length, n);
    assert.equal(new Set(seen).size, n);
    const s = await stats(pools[0]!);
    assert.deepEqual(s.byState, { queued: 0, sending: n, dead: 0 });
  });

  test('a lease that runs out makes the message due again, and the old holder loses it', async () => {
    await reset();
    await enqueue(pools[0]!, message('lease'), 'x.example', null);
    const [first] = await claim(pools[0]!, 1, 100);
    assert.equal(first?.attempts, 1);
    assert.equal((await claim(pools[1]!, 1, 100)).length, 0, 'leased: not due');
    await new Promise((r) => setTimeout(r, 150));
    const [second] = await claim(pools[1]!, 1, 60_000);
    assert.equal(second?.id, first!.id);
    assert.equal(second?.attempts, 2);
    assert.equal(first?.resumed, false, 'a first claim takes over nothing');
    assert.equal(second?.resumed, true, 'taken over from a holder lost mid-send: outcome unknown');
    // The first holder's outcome no longer counts...
    assert.equal(await markRetry(pools[0]!, first!, 10, 'late'), false);
    assert.equal(await markDead(pools[0]!, first!, 'late'), false);
    // ...except a success, which always wins (the mail did go out).
    await markSent(pools[0]!, first!);
    const d = await findDelivery(pools[0]!, { id: first!.id });
    assert.equal(d?.state, 'sent');
    assert.equal(d?.recipient, 'd***@rs-sehat.example');
    assert.deepEqual(d?.parameters, {});
    // And the second holder cannot turn it back into queued or dead.
    assert.equal(await markRetry(pools[1]!, second!, 10, 'x'), false);
    assert.equal(await markDead(pools[1]!, second!, 'x'), false);
    assert.equal((await findDelivery(pools[0]!, { id: first!.id }))?.state, 'sent');
  });

  test('retry schedules the next attempt; dead is final and scrubbed', async () => {
    await reset();
    await enqueue(pools[0]!, message('retry'), 'x.example', null);
    const [d] = await claim(pools[0]!, 1, 60_000);
    assert.equal(await markRetry(pools[0]!, d!, 300, '451 later'), true);
    const queued = await findDelivery(pools[0]!, { id: d!.id });
    assert.equal(queued?.state, 'queued');
    assert.equal(queued?.last_error, '451 later');
    assert.equal((await claim(pools[0]!, 1, 60_000)).length, 0, 'not due before its retry time');
    await new Promise((r) => setTimeout(r, 350));
    const [again] = await claim(pools[0]!, 1, 60_000);
    assert.equal(again?.attempts, 2);
    assert.equal(again?.resumed, false, 'a retry after a known failure is not a take-over');
    assert.equal(await markDead(pools[0]!, again!, '550 no'), true);
    const dead = await findDelivery(pools[0]!, { id: d!.id });
    assert.equal(dead?.state, 'dead');
    assert.equal(dead?.next_attempt_at, null);
    assert.deepEqual(dead?.parameters, {});
    assert.equal((await claim(pools[0]!, 10, 60_000)).length, 0, 'never claimed again');
    assert.equal((await stats(pools[0]!)).byState.dead, 1);
  });

  test('purge removes finished messages past the retention period only', async () => {
    await reset();
    await enqueue(pools[0]!, message('old'), 'x.example', null);
    await enqueue(pools[0]!, message('open'), 'x.example', null);
    const [d] = await claim(pools[0]!, 1, 60_000);
    await markSent(pools[0]!, d!);
    assert.equal(await purge(pools[0]!, 1), 0);
    await pools[0]!.query(`update deliveries set updated_at = now() - interval '2 days'`);
    assert.equal(await purge(pools[0]!, 1), 1);
    assert.equal(Number((await pools[0]!.query('select count(*) from deliveries')).rows[0].count), 1);
  });
});
