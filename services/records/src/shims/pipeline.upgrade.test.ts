// Fails when a pg upgrade moves what shims/pipeline.ts uses below pg's public API: prepareValue in
// pg/lib/utils.js, the connection's parsedStatements, stream and message writers, and pg.Query as a
// class a Submittable can extend. pipeline.int.test.ts then checks the transaction against Postgres.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import pg from 'pg';

test("pg's internals used by the one-Sync transaction are still there", () => {
  const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue?: (v: unknown) => unknown };
  assert.equal(typeof prepareValue, 'function');
  assert.equal(prepareValue!(new Date(Date.UTC(2026, 0, 2))) !== undefined, true);
  assert.deepEqual(prepareValue!([1, 2]), '{"1","2"}');
  const connection = (new pg.Client() as unknown as { connection: Record<string, unknown> }).connection;
  assert.equal(typeof connection.parsedStatements, 'object');
  assert.equal(typeof (connection.stream as { cork?: unknown }).cork, 'function');
  for (const writer of ['bind', 'describe', 'execute', 'parse', 'sync']) assert.equal(typeof connection[writer], 'function', writer);
  assert.equal(typeof pg.Query, 'function');
  for (const handler of ['handleRowDescription', 'handleDataRow', 'handleCommandComplete', 'handleReadyForQuery', 'handleError'])
    assert.equal(typeof (pg.Query.prototype as unknown as Record<string, unknown>)[handler], 'function', handler);
});
