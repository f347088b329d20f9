// Where sign-in links land.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { landing } from './email.ts';

describe('sign-in links', () => {
  test('links land on the account page and fail back to the sign-in page', () => {
    const url = landing('https://simrs.example.org/api/auth/magic-link/verify?token=t&callbackURL=%2F', 'https://simrs.example.org');
    const u = new URL(url);
    assert.equal(u.searchParams.get('callbackURL'), 'https://simrs.example.org/auth/account');
    assert.equal(u.searchParams.get('errorCallbackURL'), 'https://simrs.example.org/auth/sign-in');
    const kept = new URL(landing('https://x.org/api/auth/magic-link/verify?token=t&callbackURL=%2Foauth%2Fcontinue', 'https://x.org'));
    assert.equal(kept.searchParams.get('callbackURL'), '/oauth/continue');
  });
});
