// TenantDb.one against a real Postgres, on a pool of one connection so that every call after the
// first finds its statements prepared and is sent as one transaction with one Sync (shims/pipeline.ts):
// the same rows as the first call, the tenant set inside the transaction and gone after it, and after
// a failure the transaction rolled back and the connection as good as new.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { throwawayDatabase } from '@simrs/platform/testing';
import type { Pool } from '@simrs/platform/db';
import { createLogger } from '@simrs/platform/logger';
import { createAppPool, migrateRecords, tenantDb } from '../db/index.ts';
import { preparedOn } from './pipeline.ts';

describe('one statement in its own transaction', () => {
  let db: Awaited<ReturnType<typeof throwawayDatabase>>;
  let pool: Pool;

  before(async () => {
    db = await throwawayDatabase('records_pipeline');
    const appUrl = new URL(db.url);
    appUrl.username = appUrl.password = 'records_app';
    await migrateRecords(db.url, appUrl.toString(), createLogger('records-test', 'silent'));
    pool = createAppPool(appUrl.toString(), { max: 1, statementTimeoutMs: 5_000 });
  });
  after(async () => {
    await pool?.end();
    await db?.drop();
  });

  /** Whether the pool's one connection has prepared what a call of `sql` needs to go in one Sync. */
  async function prepared(sql: string): Promise<boolean> {
    const client = await pool.connect();
    try {
      const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements;
      const name = Object.keys(parsed).find((n) => parsed[n] === sql);
      return name !== undefined && preparedOn(client, name, sql);
    } finally {
      client.release();
    }
  }

  const sql = `select current_setting('app.tenant_id', true) as tenant, $1::text as echo, '2026-01-02 03:04:05.678901+00'::timestamptz as at,
    '1990-05-17'::date as born, null::text as nothing, 7::int as n`;

  test('the first call prepares, the next ones go in one Sync with the same rows, by name and by position', async () => {
    const t = tenantDb(pool, 'rs-satu');
    assert.equal(await prepared(sql), false);
    const first = await t.one(sql, ['hello']);
    assert.equal(await prepared(sql), true, 'the first call prepared BEGIN, the tenant, the statement and COMMIT');
    const again = await t.one(sql, ['hello']);
    assert.deepEqual(again, first);
    assert.deepEqual(first, [
      { tenant: 'rs-satu', echo: 'hello', at: '2026-01-02T03:04:05.678Z', born: '1990-05-17', nothing: null, n: 7 },
    ]);
    assert.deepEqual(await t.one(sql, ['hello'], { rowMode: 'array' }), [
      ['rs-satu', 'hello', '2026-01-02T03:04:05.678Z', '1990-05-17', null, 7],
    ]);
    // Another tenant on the same connection sees its own, and nothing outlives the transaction.
    assert.deepEqual((await tenantDb(pool, 'rs-dua').one<{ tenant: string }>(sql, ['x']))[0]!.tenant, 'rs-dua');
    assert.equal((await pool.query<{ t: string | null }>("select current_setting('app.tenant_id', true) as t")).rows[0]!.t || null, null);
    // An unprepared (unnamed) statement goes in the same single Sync.
    assert.deepEqual(await t.one('select $1::int + 1 as m', [41], { prepare: false }), [{ m: 42 }]);
  });

  test('a failure rolls the transaction back and leaves the connection usable', async () => {
    const t = tenantDb(pool, 'rs-satu');
    // A session setting made inside the transaction tells whether it was committed or rolled back.
    const failing = `select set_config('app.witness', 'committed', false), 1 / $1::int as boom`;
    await assert.rejects(t.one(failing, [0]), { code: '22012' });
    assert.equal(await prepared(failing), true, 'the statement is prepared (it failed when executed, not when parsed)');
    await assert.rejects(t.one(failing, [0]), { code: '22012' }, 'the same error through the single Sync');
    const client = await pool.connect();
    try {
      assert.equal((client as unknown as { getTransactionStatus(): string }).getTransactionStatus(), 'I', 'no transaction left open');
      const witness = await client.query<{ w: string | null }>("select current_setting('app.witness', true) as w");
      assert.notEqual(witness.rows[0]!.w, 'committed', 'what the failed transaction did was rolled back');
    } finally {
      client.release();
    }
    assert.deepEqual((await t.one<{ echo: string }>(sql, ['after']))[0]!.echo, 'after');
    // A failure in the statement's own text (not when executed) is the statement's error too.
    await assert.rejects(t.one('select no_such_column from records.pasien', [], { prepare: false }), { code: '42703' });
    assert.deepEqual((await t.one<{ echo: string }>(sql, ['still']))[0]!.echo, 'still');
  });
});
