// The bound on guessing codes, from the send limits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { schema } from '../config.ts';
import { REQUIRED_ENV } from '../testing/index.ts';
import { guessBound } from './limits.ts';

describe('settings', () => {
  test('the guess bound follows the send limits', () => {
    const c = schema.parse(REQUIRED_ENV);
    assert.deepEqual(guessBound(c), { perHour: 15, perDay: 60 });
  });
});
