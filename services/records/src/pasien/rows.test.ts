import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASIEN_WIDTH, toPasien, toPasienFromArray } from './rows.ts';
import { COLUMNS } from './schema.ts';

test('a row read by position becomes the same patient as the row read by name, key for key', () => {
  // Every field a different value, so that two fields swapped by position would show.
  const row: Record<string, unknown> = Object.fromEntries(Object.keys(COLUMNS).map((f, i) => [f, `${f}-${i}`]));
  row.createdAt = new Date('2026-01-02T03:04:05.678Z');
  row.archivedAt = null;
  const byPosition = [...Object.keys(COLUMNS).map((f) => row[f]), 'sort-key'];
  assert.equal(PASIEN_WIDTH, Object.keys(COLUMNS).length);
  assert.deepEqual(toPasienFromArray(byPosition), toPasien(row));
  assert.equal(JSON.stringify(toPasienFromArray(byPosition)), JSON.stringify(toPasien(row)));
  assert.equal(toPasienFromArray(byPosition).createdAt, '2026-01-02T03:04:05.678Z');
});
