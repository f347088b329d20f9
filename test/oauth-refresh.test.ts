// Token refresh through the gateway with real processes, where identity keeps the client and refresh
// token rows it read for the rest of one token request (services/identity/src/oauth/rows-per-request.ts):
// nothing kept reaches the next request, and one refresh token sent twice at once still ends its grant.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import * as client from 'openid-client';
import {
  apiQuery,
  Browserless,
  issueRegistrationToken,
  refreshGrantForm,
  registerClient,
  startOAuthWorld,
  tokensFor,
  within,
} from './support/oauth.ts';
import type { OAuthWorld, RegisteredClient } from './support/oauth.ts';

const TENANT = 'rs-refresh';
const USERS = { admin: 'admin@rs-refresh.test', doctor: 'dokter@rs-refresh.test' };

let world: OAuthWorld;
let app: RegisteredClient;
let doctor: Browserless;

const status = async (res: Response) => {
  await res.arrayBuffer();
  return res.status;
};

/** A refresh as a client sends it, answered as it came (status and body). */
async function refresh(refreshToken: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${world.stack.gatewayUrl}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: refreshGrantForm(app, refreshToken),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function setDisabled(disabled: boolean): Promise<void> {
  const db = new pg.Client({ connectionString: world.stack.databases.identity });
  await db.connect();
  try {
    await db.query(`update "oauthClient" set disabled = $2 where "clientId" = $1`, [app.clientId, disabled]);
  } finally {
    await db.end();
  }
}

before(async () => {
  world = await startOAuthWorld('oauth_refresh', [
    { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
    { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
  ]);
  app = await registerClient(world.stack, await issueRegistrationToken(world.stack, USERS.admin), {
    client_name: 'Aplikasi Refresh',
    redirect_uris: [world.redirectUri],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_post',
  });
  doctor = new Browserless(world.stack);
});

after(async () => {
  await world?.stop();
});

describe('refresh with rows kept per request', () => {
  test('a client disabled right after a refresh (its row read for that request) is refused on the next one', async () => {
    const tokens = await tokensFor(world.stack, world.smtp, app, doctor, USERS.doctor);
    const first = await refresh(tokens.refresh_token!);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    await setDisabled(true);
    try {
      const refused = await refresh(first.body.refresh_token as string);
      // RFC 6749 §5.2: 400, or 401 when the client authenticated with the Authorization header.
      assert.deepEqual([refused.status, refused.body.error], [400, 'invalid_client'], JSON.stringify(refused.body));
    } finally {
      await setDisabled(false);
    }
    const again = await refresh(first.body.refresh_token as string);
    assert.equal(again.status, 200, 'the refused request spent nothing: the client works again once enabled');
  });

  test('one refresh token sent twice at once: one answer has tokens, the other is invalid_grant, and the grant ends', async () => {
    // Whichever request reads the token first, the one that finds it rotated (before the rotation,
    // or at it) ends the grant: its refresh tokens are deleted and the gateway hears the grant.
    for (let round = 0; round < 3; round++) {
      const tokens = await tokensFor(world.stack, world.smtp, app, doctor, USERS.doctor);
      const answers = await Promise.all([refresh(tokens.refresh_token!), refresh(tokens.refresh_token!)]);
      const issued = answers.filter((a) => a.status === 200);
      assert.equal(issued.length, 1, `round ${round}: ${JSON.stringify(answers.map((a) => [a.status, a.body.error]))}`);
      assert.deepEqual(
        answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body.error]),
        [[400, 'invalid_grant']],
      );
      const winner = issued[0]!.body;
      for (const accessToken of [tokens.access_token, winner.access_token as string]) {
        const took = await within(1000, async () => (await status(await apiQuery(world.stack, accessToken))) === 401);
        assert.ok(took >= 0, `round ${round}: the gateway refuses the grant's access tokens within 1 s`);
      }
      const next = await refresh(winner.refresh_token as string);
      assert.deepEqual([next.status, next.body.error], [400, 'invalid_grant'], `round ${round}: the grant's new refresh token is gone`);
      assert.equal((await client.tokenIntrospection(app.config, winner.access_token as string)).active, false);
    }
  });
});
