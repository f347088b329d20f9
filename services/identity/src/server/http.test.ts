// Which Better Auth routes the HTTP surface offers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isOffered } from './http.ts';

describe('http surface', () => {
  test('only the offered Better Auth routes pass', () => {
    for (const p of [
      '/sign-in/email-otp',
      '/passkey/verify-authentication',
      '/update-session',
      '/oauth2/token',
      '/.well-known/openid-configuration',
      '/device/code',
    ])
      assert.ok(isOffered(p), p);
    for (const p of [
      '/list-sessions',
      '/revoke-session',
      '/update-user',
      '/delete-user',
      '/sign-in/social',
      '/admin/list-users',
      '/email-otp/verify-email',
    ])
      assert.ok(!isOffered(p), p);
    // Better Auth's OAuth client and consent management, resource admin, session JWTs and session-token device grant.
    for (const p of [
      '/oauth2/create-client',
      '/oauth2/get-clients',
      '/oauth2/delete-client',
      '/oauth2/client/rotate-secret',
      '/oauth2/get-consents',
      '/admin/oauth2/resources',
      '/token',
      '/device/token',
    ])
      assert.ok(!isOffered(p), p);
  });
});
