// The dashboard's identity endpoints beyond user management: revoking an integration (tenant-scoped,
// everything it holds deleted, the gateway told), pending device requests, names for auditors, the
// hospital's name for everyone, and when each user last signed in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import type { Revocation } from '@simrs/contracts/revocation';
import { waitFor } from '@simrs/platform/testing';
import { signInWithOtp, hearRevocations, startFixture } from '../testing/index.ts';
import type { Client, Fixture } from '../testing/index.ts';

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const identityClient = (address: string) => createClient(IdentityService, address);

describe('the dashboard endpoints of identity', () => {
  let f: Fixture;
  let identity: ReturnType<typeof identityClient>;
  let subscriber: { stop(): void } | undefined;
  const revocations: Revocation[] = [];
  const signedIn: Record<string, Client> = {};

  async function as(email: string): Promise<Client> {
    if (!signedIn[email]) {
      const client = f.client();
      await signInWithOtp(f, client, email);
      signedIn[email] = client;
    }
    return signedIn[email];
  }

  /** A public device-grant client registered for the admin's tenant with an initial access token. */
  async function registerDeviceClient(adminEmail: string, name: string): Promise<string> {
    const { token } = await identity.issueRegistrationToken({ actor: { email: adminEmail }, allowWrite: false, ttlSeconds: 0 });
    const res = await f.client().fetch('/api/auth/oauth2/register', {
      body: { client_name: name, token_endpoint_auth_method: 'none', grant_types: [DEVICE_CODE_GRANT, 'refresh_token'] },
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { client_id: string }).client_id;
  }

  const deviceCode = async (clientId: string) => {
    const res = await f.client().fetch('/api/auth/device/code', { body: { client_id: clientId, scope: 'openid simrs:read' } });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as { user_code: string; device_code: string };
  };

  before(async () => {
    f = await startFixture('account-api');
    identity = identityClient(f.grpcAddress);
    subscriber = await hearRevocations(f, revocations);
  });
  after(async () => {
    identity?.close();
    subscriber?.stop();
    await f?.stop();
  });

  test('every user sees their hospital by name', async () => {
    const nurse = await as('perawat@rs-demo.test');
    const me = (await (await nurse.fetch('/api/auth/account/me')).json()) as { tenant: { id: string; name: string } };
    assert.deepEqual(me.tenant, { id: 'rs-demo', name: 'RS Demo Sehat' });
    assert.equal((await f.client().fetch('/api/auth/account/me')).status, 401);
  });

  test('auditors and admins get names and roles of their own tenant, never addresses; others are refused', async () => {
    const auditor = await as('auditor@rs-demo.test');
    const res = await auditor.fetch('/api/auth/tenant/names');
    assert.equal(res.status, 200);
    const { users } = (await res.json()) as { users: Record<string, unknown>[] };
    assert.ok(users.some((u) => u.name === 'dr. Dokter Demo' && u.role === 'doctor'));
    assert.ok(
      users.every((u) => Object.keys(u).sort().join() === 'id,name,role'),
      'id, name and role only',
    );
    assert.ok(!users.some((u) => u.name === 'Admin RS Lain'), 'only their own tenant');
    assert.equal((await (await as('admin@rs-demo.test')).fetch('/api/auth/tenant/names')).status, 200);
    assert.equal((await (await as('perawat@rs-demo.test')).fetch('/api/auth/tenant/names')).status, 403);
  });

  test('the user list says who never signed in and when the others last did', async () => {
    const admin = await as('admin@rs-demo.test');
    const { users } = (await (await admin.fetch('/api/auth/tenant/users')).json()) as {
      users: { email: string; lastSignInAt: string | null; emailVerified: boolean }[];
    };
    const byEmail = new Map(users.map((u) => [u.email, u]));
    const me = byEmail.get('admin@rs-demo.test')!;
    assert.ok(me.lastSignInAt && Date.now() - Date.parse(me.lastSignInAt) < 60_000, 'signed in a moment ago');
    const doctor = byEmail.get('dokter@rs-demo.test')!;
    assert.equal(doctor.emailVerified, true, 'seeded as verified ...');
    assert.equal(doctor.lastSignInAt, null, '... but never signed in');
  });

  test("an admin sees the pending device requests of their tenant's clients, without the user codes", async () => {
    const clientId = await registerDeviceClient('admin@rs-demo.test', 'Terminal Bangsal Mawar');
    const grant = await deviceCode(clientId);
    const otherClient = await registerDeviceClient('admin@rs-lain.test', 'Terminal RS Lain');
    await deviceCode(otherClient);

    const admin = await as('admin@rs-demo.test');
    const res = await admin.fetch('/api/auth/tenant/device-requests');
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes(grant.user_code), 'no user code in full');
    const { requests } = JSON.parse(text) as {
      requests: { clientId: string; clientName: string; scope: string; createdAt: string; expiresAt: string }[];
    };
    const mine = requests.find((r) => r.clientId === clientId)!;
    assert.equal(mine.clientName, 'Terminal Bangsal Mawar');
    assert.equal(mine.scope, 'openid simrs:read');
    assert.ok(Date.parse(mine.createdAt) <= Date.now() && Date.parse(mine.expiresAt) > Date.now());
    assert.ok(!requests.some((r) => r.clientId === otherClient), "not another tenant's");
    assert.equal((await (await as('perawat@rs-demo.test')).fetch('/api/auth/tenant/device-requests')).status, 403);

    // Anyone of the hospital may see the name of the application asking (the device page).
    const named = await (await as('perawat@rs-demo.test')).fetch(`/api/auth/account/oauth-client?clientId=${clientId}`);
    assert.deepEqual(await named.json(), { clientId, name: 'Terminal Bangsal Mawar' });
    assert.equal((await (await as('perawat@rs-demo.test')).fetch(`/api/auth/account/oauth-client?clientId=${otherClient}`)).status, 404);
  });

  test("an admin revokes their tenant's client: disabled, grants deleted, the gateway told; not another tenant's", async () => {
    const clientId = await registerDeviceClient('admin@rs-demo.test', 'Aplikasi Lama');
    const grant = await deviceCode(clientId);
    const admin = await as('admin@rs-demo.test');
    const other = await as('admin@rs-lain.test');

    const refused = await other.post('/api/auth/tenant/revoke-oauth-client', { clientId });
    assert.equal(refused.status, 404, 'another tenant cannot revoke it');
    assert.equal((await (await as('dokter@rs-demo.test')).post('/api/auth/tenant/revoke-oauth-client', { clientId })).status, 403);
    assert.equal((await admin.post('/api/auth/tenant/revoke-oauth-client', {})).status, 400);

    const since = revocations.length;
    const res = await admin.post('/api/auth/tenant/revoke-oauth-client', { clientId });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { client: { disabled: boolean }; usersNotified: number };
    assert.equal(body.client.disabled, true);
    assert.ok(body.usersNotified >= 5);
    await waitFor(
      'a cut-off for this client per user of the tenant',
      async () => revocations.slice(since).filter((r) => r.clientId === clientId && r.userId).length === body.usersNotified,
    );
    const { clients } = (await (await admin.fetch('/api/auth/tenant/oauth-clients')).json()) as {
      clients: { clientId: string; disabled: boolean }[];
    };
    assert.equal(clients.find((c) => c.clientId === clientId)?.disabled, true);
    // Its device code is gone, and it gets no new one.
    const poll = await fetch(new URL('/api/auth/oauth2/token', f.httpUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_CODE_GRANT, device_code: grant.device_code, client_id: clientId }),
    });
    assert.equal(poll.status, 400);
    assert.notEqual(((await poll.json()) as { error: string }).error, 'authorization_pending');
    const again = await f.client().fetch('/api/auth/device/code', { body: { client_id: clientId, scope: 'openid' } });
    assert.ok(again.status >= 400 && again.status < 500, `a revoked client gets no device code (${again.status})`);
  });
});
