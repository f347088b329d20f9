// The second try after the database was away (db/retry.ts), against a real Postgres behind a TCP relay
// that can refuse a connection or cut every open one, as a failover does to a pool:
// - a write that provably did not commit (no connection; refused before COMMIT, as a demoted primary
//   refuses writes; the connection lost before COMMIT was sent) is sent once more and lands once;
// - a write whose COMMIT went out without an answer is not sent again: the caller gets the failure
//   (a 503 with Retry-After at the surfaces) and the row is there once, not twice;
// - a read is sent again after any unavailability.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type pg from 'pg';
import { startRelay } from '@simrs/platform/testing';
import type { Relay } from '@simrs/platform/testing';
import type { Pool } from '@simrs/platform/db';
import { migratedDatabase } from '../testing/index.ts';
import type { MigratedDatabase } from '../testing/index.ts';
import { createAppPool, isUnavailable, tenantDb } from './index.ts';

describe('one more try when the database was away', () => {
  let db: MigratedDatabase;
  let owner: pg.Client;
  let relay: Relay;
  let pool: Pool;
  let next = 0;

  before(async () => {
    db = await migratedDatabase('retry');
    owner = db.owner;
    await owner.query('create table records.retry_probe (n int not null)');
    await owner.query('grant select, insert on records.retry_probe to records_app');
    relay = await startRelay(db.appUrl);
    pool = createAppPool(relay.url, { max: 1, statementTimeoutMs: 5_000 });
  });
  after(async () => {
    await pool?.end();
    await relay?.stop();
    await db?.drop();
  });
  beforeEach(() => void next++);

  const insert = (slow = false) => `insert into records.retry_probe select $1::int ${slow ? 'from pg_sleep(0.4)' : ''} returning n`;
  const stored = async (n: number) =>
    (await owner.query<{ c: number }>('select count(*)::int as c from records.retry_probe where n = $1', [n])).rows[0]!.c;
  const cutSoon = () => setTimeout(() => relay.cutAll(), 150);

  test('a write whose connection could not be had is sent once more and lands once', async () => {
    relay.cutAll(); // the pool's connection is gone: the call needs a new one
    const before = relay.connections;
    relay.refuseNext(1);
    assert.deepEqual(await tenantDb(pool, 'rs-satu').one(insert(), [next]), [{ n: next }]);
    assert.equal(relay.connections - before, 2, 'refused once, then connected');
    assert.equal(await stored(next), 1);
  });

  for (const path of ['prepared (one Sync)', 'first on its connection']) {
    test(`a write refused as read-only (a demoted primary) goes again on a fresh connection: ${path}`, async () => {
      const t = tenantDb(pool, 'rs-satu');
      const sql = path.startsWith('prepared') ? insert() : `${insert()} -- ${next}`;
      if (path.startsWith('prepared')) await t.one(sql, [-1]); // prepares it on the pool's connection
      const client = await pool.connect();
      await client.query('set default_transaction_read_only = on');
      client.release();
      assert.deepEqual(await t.one(sql, [next]), [{ n: next }]);
      assert.equal(await stored(next), 1);
    });
  }

  test('a transaction whose connection dropped before COMMIT was sent goes again and lands once', async () => {
    let attempts = 0;
    const rows = await tenantDb(pool, 'rs-satu').tx(async (q) => {
      attempts++;
      await q.query(insert(), [next]);
      if (attempts === 1) relay.cutAll();
      return q.query<{ n: number }>('select $1::int as n', [next]);
    });
    assert.deepEqual(rows, [{ n: next }]);
    assert.equal(attempts, 2);
    assert.equal(await stored(next), 1);
  });

  test('a write whose COMMIT went out without an answer is not sent again: the failure reaches the caller, the row is there once', async () => {
    cutSoon();
    const failure = await tenantDb(pool, 'rs-satu')
      .one(insert(true), [next])
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(failure && isUnavailable(failure), `unavailable, not sent again: ${String(failure)}`);
    await new Promise((resolve) => setTimeout(resolve, 600)); // the statement and its COMMIT finish server-side
    assert.equal(await stored(next), 1);
  });

  test('a read whose connection dropped is sent again', async () => {
    cutSoon();
    const read = tenantDb(pool, 'rs-satu', { idempotent: true }).one<{ n: number }>('select $1::int as n from pg_sleep(0.4)', [next]);
    assert.deepEqual(await read, [{ n: next }]);
  });
});
