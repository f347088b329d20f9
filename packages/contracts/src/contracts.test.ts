import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ROLES, SESSION_SCOPES, isRole } from './access.ts';
import { sessionCookieName } from './cookie.ts';
import { envelope, fhirOutcome, isFhirPath } from './envelope.ts';
import { defaultAudience, defaultIssuer, JWKS_PATH } from './oauth.ts';
import { signPrincipal, verifyPrincipal } from './principal.ts';
import { cutoffNow, decodeRevocation, encodeRevocation, revokes } from './revocation.ts';

describe('revocation rule', () => {
  test('by jti, by user before a time, by user and client', () => {
    const log = [{ tokenIds: ['j1'] }, { userId: 'u1', issuedBefore: 100 }, { userId: 'u2', clientId: 'c1', issuedBefore: 100 }];
    const revoked = (token: Parameters<typeof revokes>[1]) => log.some((r) => revokes(r, token));
    assert.ok(revoked({ jti: 'j1', sub: 'x', iat: 500 }));
    assert.ok(revoked({ jti: 'j2', sub: 'u1', iat: 99 }));
    assert.ok(!revoked({ jti: 'j2', sub: 'u1', iat: 100 }), 'issued at or after the cutoff');
    assert.ok(revoked({ sub: 'u2', clientId: 'c1', iat: 50 }));
    assert.ok(!revoked({ sub: 'u2', clientId: 'c2', iat: 50 }), 'another client of the same user');
    assert.ok(!revoked({ sub: 'u3', iat: 1 }), 'another user');
  });

  test('a revocation survives its wire form; garbage is ignored', () => {
    const r = { userId: 'u1', clientId: 'c1', issuedBefore: cutoffNow(1_700_000_000_500), sessionIds: ['s1'] };
    assert.deepEqual(decodeRevocation(encodeRevocation(r)), r);
    assert.equal(r.issuedBefore, 1_700_000_001);
    assert.equal(decodeRevocation('{not json'), undefined);
    assert.equal(decodeRevocation('{"userId":5}'), undefined);
  });
});

describe('principal', () => {
  const secret = 'a-principal-secret-of-enough-length';
  const principal = { userId: 'u1', tenantId: 't1', role: 'doctor', scopes: ['simrs:read'], sessionId: 's1' };

  test('round trip under the shared secret', async () => {
    assert.deepEqual(await verifyPrincipal(await signPrincipal(principal, secret), secret), principal);
  });

  test('another secret, an expired or malformed one are refused', async () => {
    await assert.rejects(verifyPrincipal(await signPrincipal(principal, secret), `${secret}x`));
    await assert.rejects(verifyPrincipal(await signPrincipal(principal, secret, -1), secret));
    await assert.rejects(verifyPrincipal('not.a.jwt', secret));
  });
});

describe('session cookie, OAuth locations, roles, envelope', () => {
  test('the cookie name follows the public URL', () => {
    assert.equal(sessionCookieName('https://simrs.example.org'), '__Secure-simrs.session_token');
    assert.equal(sessionCookieName('http://localhost:8080'), 'simrs.session_token');
  });

  test('issuer, audience and JWKS path', () => {
    assert.equal(defaultIssuer('https://simrs.example.org/x'), 'https://simrs.example.org/api/auth');
    assert.equal(defaultAudience('https://simrs.example.org'), 'https://simrs.example.org/api');
    assert.equal(JWKS_PATH, '/api/auth/jwks');
  });

  test('every role has session scopes; auditors only read', () => {
    for (const role of ROLES) assert.ok(SESSION_SCOPES[role].includes('simrs:read'));
    assert.deepEqual(SESSION_SCOPES.auditor, ['simrs:read']);
    assert.ok(isRole('nurse') && !isRole('root'));
  });

  test('the envelope carries the JSON-RPC code and the HTTP status', () => {
    assert.deepEqual(envelope('NOT_FOUND', 'Not found', '/x'), {
      error: { message: 'Not found', code: -32004, data: { code: 'NOT_FOUND', httpStatus: 404, path: '/x' } },
    });
  });
});

describe('FHIR error shape', () => {
  test('under <prefix>/fhir errors are OperationOutcomes with FHIR issue codes', () => {
    assert.ok(isFhirPath('/api/v1/fhir', '/api/v1') && isFhirPath('/api/v1/fhir/Patient/1', '/api/v1'));
    assert.ok(!isFhirPath('/api/v1/fhirx', '/api/v1') && !isFhirPath('/api/v1/pasien', '/api/v1'));
    assert.deepEqual(fhirOutcome('UNAUTHORIZED', 'no'), {
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'login', diagnostics: 'no' }],
    });
    assert.equal(fhirOutcome('TOO_MANY_REQUESTS', 'slow').issue[0]!.code, 'throttled');
    assert.deepEqual(fhirOutcome('BAD_GATEWAY', 'x').issue[0], { severity: 'fatal', code: 'exception', diagnostics: 'x' });
  });
});
