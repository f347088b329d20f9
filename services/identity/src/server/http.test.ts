// Which Better Auth routes the HTTP surface offers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OWN_LIMITS } from '../auth/index.ts';
import { documentedError, isOffered, OFFERED_PATHS } from './http.ts';

describe('http surface', () => {
  test("Better Auth's own rate limit leaves exactly the offered sign-in, e-mail code and magic-link paths (and /get-session, /device) to SIMRS's limits", () => {
    const own = [...OFFERED_PATHS].filter(
      (p) => ['/sign-in/', '/email-otp/', '/magic-link/'].some((x) => p.startsWith(x)) || p === '/get-session' || p === '/device',
    );
    assert.deepEqual(new Set(OWN_LIMITS), new Set(own));
  });

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

  test('error answers are rewritten into the shape documented for their path', () => {
    const betterAuth = Buffer.from(JSON.stringify({ code: 'INVALID_OTP', message: 'Invalid OTP' }));
    assert.deepEqual(JSON.parse(documentedError(400, betterAuth, '/api/auth/sign-in/email-otp')!.toString()), {
      error: {
        message: 'Invalid OTP',
        code: -32600,
        data: { code: 'BAD_REQUEST', httpStatus: 400, path: '/api/auth/sign-in/email-otp', reason: 'INVALID_OTP' },
      },
    });
    assert.deepEqual(JSON.parse(documentedError(400, betterAuth, '/api/auth/oauth2/token')!.toString()), {
      error: 'invalid_request',
      error_description: 'Invalid OTP',
    });
    const oauth = Buffer.from(JSON.stringify({ error: 'invalid_grant', error_description: 'expired' }));
    assert.equal(documentedError(400, oauth, '/api/auth/oauth2/token'), undefined, 'already RFC 6749');
    const internal = JSON.parse(
      documentedError(500, Buffer.from('{"code":"X","message":"relation foo does not exist"}'), '/api/auth/x')!.toString(),
    );
    assert.equal(internal.error.message, 'internal error', 'no internal message in a 5xx');
    assert.equal(JSON.parse(documentedError(404, Buffer.alloc(0), '/api/auth/x')!.toString()).error.data.code, 'NOT_FOUND');
  });
});
