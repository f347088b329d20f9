import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkUnmoved, sameInstant } from './unmoved.ts';

const stored = '2026-03-10T01:05:45.447Z';

test('the same instant at the precision it was written to, in any zone', () => {
  assert.equal(sameInstant('2026-03-10T08:05:45.447+07:00', stored), true);
  assert.equal(sameInstant('2026-03-10T01:05:45Z', stored), true, 'to the second');
  assert.equal(sameInstant('2026-03-10T08:05:45.4+07:00', stored), true, 'to a tenth');
  assert.equal(sameInstant('2026-03-10T08:05:45.5+07:00', stored), false);
  assert.equal(sameInstant('2026-03-10T08:05:46+07:00', stored), false);
  assert.equal(sameInstant('2026-03-10T01:05:45.448Z', stored), false);
});

test('a change naming another patient, visit or time is refused on that field; one in another format says what to send', () => {
  const row = { pasien_id: 'a-patient', kunjungan_id: 'a-visit', waktu: stored };
  const fieldsOf = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      return (err as { cause: { fieldErrors: Record<string, string[]> } }).cause.fieldErrors;
    }
    return {};
  };
  assert.deepEqual(
    fieldsOf(() => checkUnmoved(row, { kunjunganId: 'a-visit', waktu: '2026-03-10T08:05:45+07:00' })),
    {},
  );
  assert.match(fieldsOf(() => checkUnmoved(row, { pasienId: 'another' })).pasienId![0]!, /never changes/);
  assert.match(fieldsOf(() => checkUnmoved(row, { kunjunganId: 'another' })).kunjunganId![0]!, /never changes/);
  assert.match(fieldsOf(() => checkUnmoved(row, { waktu: '2026-03-10T08:06:00+07:00' })).waktu![0]!, /never changes/);
  for (const waktu of [42, null, '2026-03-10', '2026-03-10T08:05:45', 'yesterday'])
    assert.match(
      fieldsOf(() => checkUnmoved(row, { waktu })).waktu![0]!,
      /^waktu must be (a date-time|an ISO 8601 date-time with its offset)/,
      String(waktu),
    );
});
