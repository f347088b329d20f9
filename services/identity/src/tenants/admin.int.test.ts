// Tenants, invitations, roles and deactivation through the gRPC admin API (as the CLI uses it), the
// CLI itself, and the account page's tenant endpoints.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient, grpc } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import type { Revocation } from '@simrs/contracts/revocation';
import { waitFor } from '@simrs/platform/testing';
import { linkFrom, signInWithOtp, hearRevocations, startFixture } from '../testing/index.ts';
import type { Client, Fixture } from '../testing/index.ts';

const COOKIE = 'simrs.session_token';
const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const run = promisify(execFile);
const identityClient = (address: string) => createClient(IdentityService, address);

describe('tenants and roles', () => {
  let f: Fixture;
  let identity: ReturnType<typeof identityClient>;
  let subscriber: { stop(): void } | undefined;
  const revocations: Revocation[] = [];
  const validate = (client: Client) => identity.validateSession({ sessionToken: client.cookies.get(COOKIE) ?? '' });

  /** Opens the invitation mailed to `email` in a fresh browser; returns the signed-in client. */
  async function acceptInvitation(email: string, since: number): Promise<Client> {
    const mail = await f.smtp.waitForMail(email, since);
    const link = new URL(linkFrom(mail));
    const browser = f.client();
    const res = await browser.fetch(link.pathname + link.search);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), `${f.publicUrl}/`, 'the dashboard');
    return browser;
  }

  before(async () => {
    f = await startFixture('admin');
    identity = identityClient(f.grpcAddress);
    subscriber = await hearRevocations(f, revocations);
  });
  after(async () => {
    identity?.close();
    subscriber?.stop();
    await f?.stop();
  });

  test('the operator creates a tenant; its first admin signs in with the invitation', async () => {
    const since = f.smtp.messages.length;
    const res = await identity.createTenant({
      tenantId: 'rs-baru',
      name: 'RS Baru Sentosa',
      adminEmail: 'Kepala@RS-Baru.test',
      adminName: 'Kepala',
    });
    assert.equal(res.tenant?.tenantId, 'rs-baru');
    assert.equal(res.admin?.email, 'kepala@rs-baru.test');
    assert.equal(res.admin?.role, 'tenant_admin');
    assert.equal(res.admin?.emailVerified, false);
    const admin = await acceptInvitation('kepala@rs-baru.test', since);
    const { principal } = await validate(admin);
    assert.equal(principal?.tenantId, 'rs-baru');
    assert.equal(principal?.role, 'tenant_admin');
    await assert.rejects(identity.createTenant({ tenantId: 'rs-baru', name: 'Again', adminEmail: 'other@rs-baru.test' }), {
      code: grpc.status.ALREADY_EXISTS,
    });
    await assert.rejects(identity.createTenant({ tenantId: 'Not A Slug', name: 'x', adminEmail: 'x@x.test' }), {
      code: grpc.status.INVALID_ARGUMENT,
    });
  });

  test('a tenant admin invites a user, who signs in; a nurse cannot invite', async () => {
    const since = f.smtp.messages.length;
    const res = await identity.inviteUser({
      actor: { email: 'admin@rs-demo.test' },
      email: 'bidan@rs-demo.test',
      role: 'nurse',
      name: 'Bidan',
    });
    assert.equal(res.user?.tenantId, 'rs-demo');
    const invitee = await acceptInvitation('bidan@rs-demo.test', since);
    assert.equal((await validate(invitee)).principal?.role, 'nurse');
    // The invitation link is single-use like every magic link.
    const mail = f.smtp.to('bidan@rs-demo.test').at(-1)!;
    const again = await f.client().fetch(new URL(linkFrom(mail)).pathname + new URL(linkFrom(mail)).search);
    assert.match(again.headers.get('location') ?? '', /error=INVALID_TOKEN/);

    await assert.rejects(identity.inviteUser({ actor: { email: 'perawat@rs-demo.test' }, email: 'x@rs-demo.test', role: 'doctor' }), {
      code: grpc.status.PERMISSION_DENIED,
    });
    // Another tenant's admin cannot touch rs-demo's users.
    await assert.rejects(identity.deactivateUser({ actor: { email: 'admin@rs-lain.test' }, user: { email: 'dokter@rs-demo.test' } }), {
      code: grpc.status.NOT_FOUND,
    });
    await assert.rejects(identity.inviteUser({ actor: { email: 'admin@rs-demo.test' }, email: 'x@rs-demo.test', role: 'janitor' }), {
      code: grpc.status.INVALID_ARGUMENT,
    });
  });

  test('a deactivated user stops validating at once, and the gateway is told', async () => {
    const email = 'pendaftaran@rs-demo.test';
    const browser = f.client();
    await signInWithOtp(f, browser, email);
    const { principal } = await validate(browser);
    const res = await identity.deactivateUser({ actor: { email: 'admin@rs-demo.test' }, user: { email } });
    assert.equal(res.user?.active, false);
    assert.equal(res.sessionsEnded, 1);
    await assert.rejects(validate(browser), { code: grpc.status.UNAUTHENTICATED });
    await waitFor('the revocation message', async () => revocations.some((r) => r.userId === principal!.userId));
    // No new session either: the address now answers like an unknown one and gets no mail.
    const since = f.smtp.messages.length;
    const sent = await f.client().post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' });
    assert.equal(sent.status, 200);
    assert.deepEqual(await sent.json(), { success: true });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(f.smtp.messages.slice(since).filter((m) => m.to.includes(email)).length, 0);

    const back = await identity.reactivateUser({ actor: { email: 'admin@rs-demo.test' }, user: { userId: principal!.userId } });
    assert.equal(back.user?.active, true);
    await assert.rejects(validate(browser), { code: grpc.status.UNAUTHENTICATED }, 'old sessions stay ended');
  });

  test('a role change reaches the gateway and the principal at once', async () => {
    const browser = f.client();
    await signInWithOtp(f, browser, 'auditor@rs-demo.test');
    const before = (await validate(browser)).principal!;
    assert.deepEqual(before.scopes, ['simrs:read']);
    await identity.changeRole({ actor: { email: 'admin@rs-demo.test' }, user: { email: 'auditor@rs-demo.test' }, role: 'doctor' });
    await waitFor('the revocation message', async () => revocations.some((r) => r.userId === before.userId));
    const after = (await validate(browser)).principal!;
    assert.equal(after.role, 'doctor');
    assert.deepEqual(after.scopes, ['simrs:read', 'simrs:write']);
  });

  test('a tenant keeps at least one active admin', async () => {
    await assert.rejects(identity.deactivateUser({ actor: { email: 'admin@rs-lain.test' }, user: { email: 'admin@rs-lain.test' } }), {
      code: grpc.status.FAILED_PRECONDITION,
    });
    await assert.rejects(
      identity.changeRole({ actor: { email: 'admin@rs-lain.test' }, user: { email: 'admin@rs-lain.test' }, role: 'doctor' }),
      {
        code: grpc.status.FAILED_PRECONDITION,
      },
    );
  });

  test('the account page lets a tenant admin list and invite; others are refused', async () => {
    const admin = f.client();
    await signInWithOtp(f, admin, 'admin@rs-demo.test');
    const list = await (await admin.fetch('/api/auth/tenant/users')).json();
    assert.equal(list.tenant.id, 'rs-demo');
    assert.ok(list.users.some((u: { email: string }) => u.email === 'dokter@rs-demo.test'));
    assert.ok(list.users.every((u: { tenantId?: string; email: string }) => u.email.endsWith('@rs-demo.test')));
    const invited = await admin.post('/api/auth/tenant/invite-user', { email: 'apoteker@rs-demo.test', role: 'nurse' });
    assert.equal(invited.status, 200);
    // identity serves no pages: its former account page is not found (the dashboard's /akun replaces it).
    assert.equal((await admin.fetch('/auth/account')).status, 404);

    const nurse = f.client();
    await signInWithOtp(f, nurse, 'perawat@rs-demo.test');
    assert.equal((await nurse.fetch('/api/auth/tenant/users')).status, 403);
    assert.equal((await nurse.post('/api/auth/tenant/invite-user', { email: 'y@rs-demo.test', role: 'nurse' })).status, 403);
  });

  test('the CLI prints tenants and users, and explains refusals', async () => {
    const env = { ...process.env, IDENTITY_GRPC: f.grpcAddress };
    const tenants = await run(process.execPath, [CLI, 'list-tenants'], { env });
    assert.match(tenants.stdout, /rs-demo\s+RS Demo Sehat/);
    const users = await run(process.execPath, [CLI, 'list-users', '--as', 'admin@rs-demo.test'], { env });
    assert.match(users.stdout, /RS Demo Sehat \(rs-demo\)/);
    assert.match(users.stdout, /dokter@rs-demo\.test\s+dr\. Dokter Demo\s+doctor\s+active/);
    const invite = await run(process.execPath, [CLI, 'invite', 'radiolog@rs-demo.test', 'doctor', '--as', 'admin@rs-demo.test'], { env });
    assert.match(invite.stdout, /Invited radiolog@rs-demo\.test \(doctor, active/);
    await assert.rejects(
      run(process.execPath, [CLI, 'invite', 'z@rs-demo.test', 'doctor', '--as', 'perawat@rs-demo.test'], { env }),
      (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 1);
        assert.match(err.stderr, /only a tenant_admin may do this.*PERMISSION_DENIED/);
        return true;
      },
    );
    await assert.rejects(run(process.execPath, [CLI, 'list-users'], { env }), (err: { code: number; stderr: string }) => {
      assert.match(err.stderr, /--as <admin> is required/);
      return true;
    });
    await assert.rejects(
      run(process.execPath, [CLI, 'list-tenants'], { env: { ...env, IDENTITY_GRPC: '127.0.0.1:1' } }),
      (err: { stderr: string }) => {
        assert.match(err.stderr, /cannot reach identity at 127\.0\.0\.1:1/);
        return true;
      },
    );
  });

  test("the CLI's rough edges: an unquoted name is refused, the registration endpoint is real, who never signed in is told; it revokes a client", async () => {
    const env = { ...process.env, IDENTITY_GRPC: f.grpcAddress };
    const admin = ['--as', 'admin@rs-demo.test'];
    await assert.rejects(
      run(process.execPath, [CLI, 'invite', 'bidan2@rs-demo.test', 'nurse', '--name', 'Bidan', 'Ani', ...admin], { env }),
      (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 2);
        assert.match(err.stderr, /unexpected argument "Ani" for invite; quote a value with spaces, e\.g\. --name "Bidan Ani"/);
        return true;
      },
    );
    assert.equal(
      (await identity.listUsers({ actor: { email: 'admin@rs-demo.test' } })).users.filter((u) => u.email === 'bidan2@rs-demo.test').length,
      0,
      'nobody half-named was stored',
    );
    const quoted = await run(process.execPath, [CLI, 'invite', 'bidan2@rs-demo.test', 'nurse', '--name', 'Bidan Ani', ...admin], { env });
    assert.match(quoted.stdout, /Invited bidan2@rs-demo\.test/);

    await signInWithOtp(f, f.client(), 'admin@rs-demo.test');
    const users = (await run(process.execPath, [CLI, 'list-users', ...admin], { env })).stdout;
    assert.match(users, /LAST SIGN-IN/);
    assert.match(users, /bidan2@rs-demo\.test\s+Bidan Ani\s+nurse\s+active\s+never/);
    // Seeded as verified, never signed in: "never", not "yes".
    assert.match(users, /dokter@rs-demo\.test\s+dr\. Dokter Demo\s+doctor\s+active\s+never/);
    assert.match(users, /admin@rs-demo\.test\s+Admin RS Demo\s+tenant_admin\s+active\s+\d{4}-\d{2}-\d{2}/);

    const issued = (await run(process.execPath, [CLI, 'issue-registration-token', ...admin], { env })).stdout;
    assert.ok(!issued.includes('<PUBLIC_URL>'), issued);
    assert.match(issued, new RegExp(`POST ${f.publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/api/auth/oauth2/register,`));
    const token = issued.split('\n')[1]!.trim();
    const registered = await f.client().fetch('/api/auth/oauth2/register', {
      body: { client_name: 'Aplikasi CLI', redirect_uris: ['http://127.0.0.1:9/cb'], application_type: 'native' },
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(registered.status, 201, await registered.clone().text());
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const since = revocations.length;
    const revoked = await run(process.execPath, [CLI, 'revoke-oauth-client', clientId, ...admin], { env });
    assert.match(revoked.stdout, new RegExp(`Revoked Aplikasi CLI \\(${clientId}\\)`));
    await waitFor('cut-offs for the client', async () => revocations.slice(since).some((r) => r.clientId === clientId));
    await assert.rejects(
      run(process.execPath, [CLI, 'revoke-oauth-client', clientId, '--as', 'admin@rs-lain.test'], { env }),
      (err: { stderr: string }) => /no such OAuth client in this tenant.*NOT_FOUND/.test(err.stderr),
    );
  });

  test('with ADMIN_API_TOKEN set, admin calls need it (ValidateSession does not)', async () => {
    const token = 'an-admin-token-of-at-least-32-characters';
    await f.restartIdentity({ ADMIN_API_TOKEN: token });
    identity.close();
    identity = identityClient(f.grpcAddress);
    await assert.rejects(identity.listTenants({}), { code: grpc.status.UNAUTHENTICATED });
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    assert.ok((await identity.listTenants({}, { metadata })).tenants.length >= 2);
    const env = { ...process.env, IDENTITY_GRPC: f.grpcAddress, ADMIN_API_TOKEN: token };
    assert.match((await run(process.execPath, [CLI, 'list-tenants'], { env })).stdout, /rs-lain/);
  });
});
