// Granular SMART v2 scopes (a `?category=` query) through the whole stack: a client allowed only
// simrs:read registers `patient/Observation.rs?category=…|vital-signs`, the consent page is asked for
// it, and the token response, the access token's scope claim and a refreshed token carry it exactly
// (its `?`, `=`, `|`, `:` and `/` unchanged). A query SIMRS does not honour is refused at registration.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { Browserless, issueRegistrationToken, registerClient, startOAuthWorld, tokensFor } from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';

const USERS = { admin: 'admin@rs-granular.test', doctor: 'dokter@rs-granular.test' };
const VITALS = 'patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|vital-signs';
const DIAGNOSES = 'user/Condition.rs?category=http://terminology.hl7.org/CodeSystem/condition-category|encounter-diagnosis';
const CLIENT = { client_name: 'Tanda Vital', application_type: 'native', token_endpoint_auth_method: 'client_secret_post' } as const;

let world: OAuthWorld;

before(async () => {
  world = await startOAuthWorld('smart_scopes', [
    { email: USERS.admin, tenant: 'rs-granular', role: 'tenant_admin' },
    { email: USERS.doctor, tenant: 'rs-granular', role: 'doctor' },
  ]);
});

after(async () => {
  await world?.stop();
});

const scopesOf = (value: unknown) => (typeof value === 'string' ? value.split(' ') : []);

describe('SMART scopes narrowed by category', () => {
  test('discovery offers the category-filtered scopes in their system|code form', async () => {
    const metadata = (await (await fetch(`${world.stack.gatewayUrl}/api/auth/.well-known/oauth-authorization-server`)).json()) as {
      scopes_supported: string[];
    };
    assert.ok(metadata.scopes_supported.includes(VITALS) && metadata.scopes_supported.includes(DIAGNOSES));
  });

  test('a client allowed simrs:read gets a token whose scope carries the vital-signs scope exactly, also after a refresh', async () => {
    const scope = `openid offline_access ${VITALS} ${DIAGNOSES}`;
    const app = await registerClient(world.stack, await issueRegistrationToken(world.stack, USERS.admin, false), {
      ...CLIENT,
      redirect_uris: [world.redirectUri],
      scope: `${scope} simrs:read`,
    });
    assert.ok(scopesOf(app.metadata.scope).includes(VITALS), String(app.metadata.scope));

    const tokens = await tokensFor(world.stack, world.smtp, app, new Browserless(world.stack), USERS.doctor, scope);
    assert.deepEqual(scopesOf(tokens.scope).sort(), scope.split(' ').sort(), 'the token response names every scope granted');
    const claim = scopesOf(decodeJwt(tokens.access_token).scope);
    assert.ok(claim.includes(VITALS) && claim.includes(DIAGNOSES), claim.join(' '));

    const refreshed = await oidc.refreshTokenGrant(app.config, tokens.refresh_token!);
    assert.ok(scopesOf(decodeJwt(refreshed.access_token).scope).includes(VITALS));
  });

  test('a query other than a category SIMRS records is not offered: the registration is refused', async () => {
    for (const scope of [
      'patient/Observation.rs?code=8867-4',
      'patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory',
      'patient/Observation.cruds?category=http://terminology.hl7.org/CodeSystem/observation-category|vital-signs',
    ]) {
      await assert.rejects(
        registerClient(world.stack, await issueRegistrationToken(world.stack, USERS.admin, true), {
          ...CLIENT,
          redirect_uris: [world.redirectUri],
          scope: `openid ${scope}`,
        }),
        (err: Error & { error?: string }) => err.error === 'invalid_client_metadata',
        scope,
      );
    }
  });
});
