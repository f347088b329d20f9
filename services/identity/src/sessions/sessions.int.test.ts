// Session management against the real processes: revoke-other-sessions, sign-out, update-session,
// the account endpoints, and the revocation messages the gateway listens to.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, grpc } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import type { Revocation } from '@simrs/contracts/revocation';
import { waitFor } from '@simrs/platform/testing';
import { signInWithOtp, hearRevocations, startFixture } from '../testing/index.ts';
import type { Client, Fixture } from '../testing/index.ts';

const COOKIE = 'simrs.session_token';
const identityClient = (address: string) => createClient(IdentityService, address);
type IdentityClient = ReturnType<typeof identityClient>;

describe('sessions', () => {
  let f: Fixture;
  let subscriber: { stop(): void } | undefined;
  let identity: IdentityClient;
  const revocations: Revocation[] = [];

  const validate = (client: Client) => identity.validateSession({ sessionToken: client.cookies.get(COOKIE) ?? '' });
  const unauthenticated = { code: grpc.status.UNAUTHENTICATED };

  before(async () => {
    f = await startFixture('sessions');
    subscriber = await hearRevocations(f, revocations);
    identity = identityClient(f.grpcAddress);
  });
  after(async () => {
    identity?.close();
    subscriber?.stop();
    await f?.stop();
  });

  test('revoke-other-sessions ends the other session at once and keeps this one', async () => {
    const email = 'dokter@rs-demo.test';
    const here = f.client();
    const there = f.client();
    await signInWithOtp(f, here, email);
    await signInWithOtp(f, there, email);
    const other = (await validate(there)).principal!;
    assert.ok((await validate(here)).principal?.sessionId);

    const since = f.smtp.messages.length;
    const res = await here.post('/api/auth/revoke-other-sessions');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: true });

    await assert.rejects(validate(there), unauthenticated);
    assert.equal((await validate(here)).principal?.userId, other.userId);
    assert.equal(await (await there.fetch('/api/auth/get-session')).json(), null);
    await waitFor('the revocation message', async () => revocations.some((r) => r.sessionIds?.includes(other.sessionId)));
    const notice = await f.smtp.waitForMail(email, since);
    assert.ok(notice.subject.length > 0, 'a security notice is mailed');
  });

  test('update-session keeps arbitrary properties and answers {session}', async () => {
    const browser = f.client();
    await signInWithOtp(f, browser, 'perawat@rs-demo.test');
    const first = await browser.post('/api/auth/update-session', { theme: 'dark', ward: { id: 7, name: 'Melati' } });
    assert.equal(first.status, 200);
    const body = await first.json();
    assert.deepEqual(Object.keys(body), ['session']);
    assert.equal(body.session.theme, 'dark');
    assert.deepEqual(body.session.ward, { id: 7, name: 'Melati' });
    assert.equal(body.session.token, undefined, 'no raw token in JSON');

    const second = await (await browser.post('/api/auth/update-session', { locale: 'id', theme: 'light' })).json();
    assert.deepEqual(second.session.properties, { theme: 'light', ward: { id: 7, name: 'Melati' }, locale: 'id' });
    // Names of the session's (or its user's) own fields are refused: a property never shadows or mimics one.
    const principal = (await validate(browser)).principal!;
    for (const sneaky of [
      { userId: 'someone-else', expiresAt: '2099-01-01' },
      { role: 'tenant_admin', tenantId: 'rs-lain', token: 'forged' },
      { theme: 'ok', id: 'x' },
      { properties: { a: 1 } },
    ]) {
      const res = await browser.post('/api/auth/update-session', sneaky);
      assert.equal(res.status, 400, JSON.stringify(sneaky));
      const refused = await res.json();
      assert.equal(refused.error.data.reason, 'RESERVED_PROPERTY_NAME');
    }
    const own = (await (await browser.post('/api/auth/update-session', { locale: 'id' })).json()).session;
    assert.equal(own.userId, principal.userId);
    assert.equal(own.id, principal.sessionId);
    assert.equal(own.role, undefined, 'no role on a session, whatever was posted');
    assert.equal(own.tenantId, undefined);
    assert.ok(new Date(own.expiresAt).getFullYear() < 2099);
    assert.equal(own.theme, 'light', 'the properties where the seed puts them');

    const stored = await (await browser.fetch('/api/auth/get-session')).json();
    assert.equal(stored.session.properties.theme, 'light');
    assert.equal(stored.session.properties.locale, 'id');

    const tooBig = await browser.post('/api/auth/update-session', { blob: 'x'.repeat(10_000) });
    assert.equal(tooBig.status, 413);
    assert.equal((await f.client().post('/api/auth/update-session', { theme: 'dark' })).status, 401);
  });

  test('the account page lists sessions without tokens and ends one by id', async () => {
    const email = 'pendaftaran@rs-demo.test';
    const a = f.client();
    const b = f.client();
    await signInWithOtp(f, a, email);
    await signInWithOtp(f, b, email);
    const sessions = (await (await a.fetch('/api/auth/account/sessions')).json()) as { id: string; current: boolean; ipAddress: string }[];
    assert.equal(sessions.length, 2);
    assert.ok(sessions.every((s) => !('token' in s)));
    const current = sessions.find((s) => s.current)!;
    assert.equal(current.ipAddress, a.ip, 'the client IP comes from X-Forwarded-For');
    const otherId = sessions.find((s) => !s.current)!.id;
    assert.equal((await a.post('/api/auth/account/revoke-session', { id: otherId })).status, 200);
    await assert.rejects(validate(b), unauthenticated);
    await waitFor('the revocation message', async () => revocations.some((r) => r.sessionIds?.includes(otherId)));
    assert.equal((await a.post('/api/auth/account/revoke-session', { id: current.id })).status, 400);
    // Better Auth's own list-sessions (which carries tokens) is not offered.
    assert.equal((await a.fetch('/api/auth/list-sessions')).status, 404);
  });

  test('sign-out ends the session and tells the gateway', async () => {
    const browser = f.client();
    await signInWithOtp(f, browser, 'auditor@rs-demo.test');
    const cookie = browser.cookies.get(COOKIE)!;
    const { principal } = await validate(browser);
    assert.deepEqual(principal?.scopes, ['simrs:read']);
    assert.equal((await browser.post('/api/auth/sign-out')).status, 200);
    await assert.rejects(identity.validateSession({ sessionToken: cookie }), unauthenticated);
    await waitFor('the revocation message', async () => revocations.some((r) => r.sessionIds?.includes(principal!.sessionId)));
    assert.ok(
      revocations.every((r) => !JSON.stringify(r).includes('@')),
      'ids only',
    );
  });

  test('a POST with the session cookie from a foreign origin is refused', async () => {
    const browser = f.client();
    await signInWithOtp(f, browser, 'admin@rs-demo.test');
    const res = await browser.fetch('/api/auth/update-session', { body: { theme: 'evil' }, headers: { origin: 'https://evil.example' } });
    assert.equal(res.status, 403);
  });

  test('passkey authentication options carry every field a WebAuthn client needs', async () => {
    const anonymous = await (await f.client().fetch('/api/auth/passkey/generate-authenticate-options')).json();
    assert.equal(typeof anonymous.challenge, 'string');
    assert.equal(anonymous.timeout, 60000);
    assert.equal(anonymous.rpId, 'localhost');
    assert.deepEqual(anonymous.rp, { name: 'SIMRS', id: 'localhost' });
    assert.deepEqual(anonymous.allowCredentials, []);
    assert.equal(anonymous.userVerification, 'required');
    assert.deepEqual(anonymous.extensions, {});
    const browser = f.client();
    await signInWithOtp(f, browser, 'dokter@rs-demo.test');
    const register = await (await browser.fetch('/api/auth/passkey/generate-register-options')).json();
    assert.equal(register.rp.id, 'localhost');
    assert.equal(register.authenticatorSelection.residentKey, 'required');
    assert.equal(register.authenticatorSelection.userVerification, 'required');
  });
});
