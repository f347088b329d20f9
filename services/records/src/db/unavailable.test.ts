// Which database errors mean "try again" (503, connection dropped) rather than a wrong query (500).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUnavailable } from './unavailable.ts';

test('a demoted primary refusing a write is unavailable, not a bug: 503 and a new connection', () => {
  assert.equal(isUnavailable({ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }), true);
});

test('connection loss, shutdown and recovery states are unavailable', () => {
  for (const code of ['ECONNRESET', '08006', '57P01', '57P03', '53300']) assert.equal(isUnavailable({ code }), true, code);
  assert.equal(isUnavailable({ message: 'Connection terminated unexpectedly' }), true);
});

test('a query the database rejects is not unavailable', () => {
  for (const code of ['23505', '42P01', '22P02', '42501']) assert.equal(isUnavailable({ code }), false, code);
});
