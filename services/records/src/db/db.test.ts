import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { isoTimestamp } from './db.ts';

const viaDate = (text: string) => (pg.types.getTypeParser(1184)(text) as Date).toISOString();

test('timestamptz text becomes the ISO string a Date would give, without a Date', () => {
  for (const text of [
    '2026-01-02 03:04:05.678901+00',
    '2026-01-02 03:04:05.6789+00',
    '2026-01-02 03:04:05.5+00',
    '2026-01-02 03:04:05.05+00',
    '2026-01-02 03:04:05.00012+00',
    '2026-01-02 03:04:05+00',
    '1999-12-31 23:59:59.999999+00',
    '2026-01-02 10:04:05.123+07', // not UTC: through a Date
    '2026-01-02 03:04:05.123456-03:30',
    '2026-01-02 03:04:05.123456+00:30', // not UTC, though it starts with +00
    '2026-01-02 03:04:05.000001+00',
    '0044-03-15 12:00:00.123456+00',
    '0044-03-15 12:00:00.123456+00 BC',
    '12026-01-02 03:04:05.678901+00',
  ]) {
    assert.equal(isoTimestamp(text), viaDate(text), text);
  }
  assert.equal(isoTimestamp('2026-01-02 03:04:05.678901+00'), '2026-01-02T03:04:05.678Z');
  assert.equal(isoTimestamp('2026-01-02 03:04:05+00'), '2026-01-02T03:04:05.000Z');
  assert.equal(isoTimestamp('2026-01-02 03:04:05.6+00'), '2026-01-02T03:04:05.600Z');
});
