// The principal a bearer token gives: its API scopes as issued, granular SMART scopes included (their
// `?`, `=`, `|` travel unchanged), everything else of the scope claim left out. The token is signed
// here and its key served from a local JWKS endpoint, as identity serves its own.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey } from 'jose';
import { ROLE_CLAIM, TENANT_CLAIM } from '@simrs/contracts/oauth';
import { BearerAuthenticator } from './bearer.ts';
import type { Revocations } from './revocations.ts';

const ISSUER = 'https://simrs.test/api/auth';
const AUDIENCE = 'https://simrs.test/api';
const VITALS = 'patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|vital-signs';
const server = createServer();
let privateKey: CryptoKey;
let jwksUrl: string;

before(async () => {
  const pair = await generateKeyPair('EdDSA');
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  server.on('request', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
after(() => new Promise((resolve) => server.close(resolve)));

test('granular SMART scopes reach the principal exactly as the token carries them; other scopes do not', async () => {
  // Only what principal() reads of the feed: it is live and revokes nothing.
  const revocations = { live: true, isRevoked: () => false } as unknown as Revocations;
  const bearer = new BearerAuthenticator({
    jwksUrl,
    issuer: ISSUER,
    audience: AUDIENCE,
    principalSecret: 'p'.repeat(40),
    revocations,
    replayStore: { check: async () => true } as never,
  });
  const scope = `openid ${VITALS} user/Condition.rs?category=encounter-diagnosis patient/Observation.rs?code=8867-4 launch/patient`;
  const token = await new SignJWT({ scope, [TENANT_CLAIM]: 'rs-demo', [ROLE_CLAIM]: 'doctor', azp: 'app' })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('u1')
    .setJti('j1')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
  const { principal } = await bearer.principal({
    scheme: 'Bearer',
    token,
    method: 'GET',
    url: 'https://simrs.test/api/v1/fhir/Observation',
  });
  assert.deepEqual(principal.scopes, [VITALS, 'user/Condition.rs?category=encounter-diagnosis']);
});
