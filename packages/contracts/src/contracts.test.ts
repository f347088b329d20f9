import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ROLES, SESSION_SCOPES, isRole } from './access.ts';
import { sessionCookieName } from './cookie.ts';
import { envelope, fhirOutcome, isFhirPath } from './envelope.ts';
import { defaultAudience, defaultIssuer, GRANT_CLAIM, ISSUED_AT_MS_CLAIM, JWKS_PATH, tokenFacts } from './oauth.ts';
import { signPrincipal, verifyPrincipal } from './principal.ts';
import { decodeRevocation, encodeRevocation, revokes, withCutoff } from './revocation.ts';

describe('revocation rule', () => {
  test('by jti, by grant, by user before a time, by user and client', () => {
    const log = [
      { tokenIds: ['j1'] },
      { grantIds: ['g1'] },
      { userId: 'u1', issuedBeforeMs: 100_000 },
      { userId: 'u2', clientId: 'c1', issuedBeforeMs: 100_000 },
    ];
    const revoked = (token: Parameters<typeof revokes>[1]) => log.some((r) => revokes(r, token));
    assert.ok(revoked({ jti: 'j1', sub: 'x', issuedAtMs: 500_000 }));
    assert.ok(revoked({ jti: 'j2', sub: 'x', grantId: 'g1', issuedAtMs: 500_000 }), 'every token of a revoked grant');
    assert.ok(!revoked({ jti: 'j2', sub: 'x', grantId: 'g2', issuedAtMs: 1 }), 'another grant of the same user and client');
    assert.ok(revoked({ jti: 'j2', sub: 'u1', issuedAtMs: 99_999 }));
    assert.ok(revoked({ sub: 'u2', clientId: 'c1', issuedAtMs: 50 }));
    assert.ok(!revoked({ sub: 'u2', clientId: 'c2', issuedAtMs: 50 }), 'another client of the same user');
    assert.ok(!revoked({ sub: 'u3', issuedAtMs: 1 }), 'another user');
  });

  test('the boundary: a token issued in the millisecond of the cut-off is accepted, one a millisecond before is refused', () => {
    // A cut-off in the middle of a second: second-precision rules (iat < ceil(cutoff / 1000)) would
    // refuse a token issued 1 ms after it for its whole life.
    const cutoff = 1_700_000_000_500;
    const revocation = withCutoff({ userId: 'u1', clientId: 'c1' }, cutoff);
    assert.equal(revocation.issuedBeforeMs, cutoff);
    const token = (issuedAtMs: number) => ({ sub: 'u1', clientId: 'c1', issuedAtMs });
    assert.ok(!revokes(revocation, token(cutoff)), 'same millisecond: issued after the revocation');
    assert.ok(!revokes(revocation, token(cutoff + 1)));
    assert.ok(revokes(revocation, token(cutoff - 1)), 'a millisecond before: revoked');
    assert.ok(revokes(revocation, token(cutoff - 500)), 'earlier in the same second: revoked');
  });

  test("the facts are read from a token's claims, with milliseconds when identity stamped them", () => {
    const facts = tokenFacts({
      jti: 'j',
      sub: 'u',
      azp: 'c',
      iat: 1_700_000_000,
      [GRANT_CLAIM]: 'g',
      [ISSUED_AT_MS_CLAIM]: 1_700_000_000_123,
    });
    assert.deepEqual(facts, { jti: 'j', sub: 'u', clientId: 'c', grantId: 'g', issuedAtMs: 1_700_000_000_123 });
    assert.equal(tokenFacts({ sub: 'u', iat: 1_700_000_000 }).issuedAtMs, 1_700_000_000_000, 'a token without it: iat in ms');
  });

  test('a revocation survives its wire form; garbage is ignored', () => {
    const r = { userId: 'u1', clientId: 'c1', issuedBeforeMs: 1_700_000_000_500, sessionIds: ['s1'], grantIds: ['g1'] };
    assert.deepEqual(decodeRevocation(encodeRevocation(r)), r);
    assert.deepEqual(withCutoff({ grantIds: ['g1'] }, 5), { grantIds: ['g1'] }, 'a grant revocation needs no time');
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

  test('a SMART scope with a category query (?, =, |, :, /) travels intact', async () => {
    const scopes = ['patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|vital-signs'];
    const granular = { ...principal, scopes, patientId: 'p1' };
    assert.deepEqual(await verifyPrincipal(await signPrincipal(granular, secret), secret), granular);
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
