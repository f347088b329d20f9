// Redis loses its data (FLUSHDB on the fixture's private redis-server, as a restart without
// persistence or a failover to an empty replica would): Postgres keeps every session, so nobody is
// signed out, and what a user sees on the account page and every way of ending sessions must read
// Postgres too. Otherwise a session that still authenticates (ValidateSession falls back to Postgres)
// would be one its owner can neither see nor end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, grpc } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import type { Revocation } from '@simrs/contracts/revocation';
import { waitFor } from '@simrs/platform/testing';
import { hearRevocations, signInWithOtp, startFixture } from '../testing/index.ts';
import type { Client, Fixture } from '../testing/index.ts';

const COOKIE = 'simrs.session_token';

describe('sessions after Redis lost its data', () => {
  let f: Fixture;
  let subscriber: { stop(): void } | undefined;
  let identity: ReturnType<typeof createClient<typeof IdentityService.method>>;
  const revocations: Revocation[] = [];

  const validate = (client: Client) => identity.validateSession({ sessionToken: client.cookies.get(COOKIE) ?? '' });
  const unauthenticated = { code: grpc.status.UNAUTHENTICATED };
  const listed = async (client: Client) => {
    const res = await client.fetch('/api/auth/account/sessions');
    assert.equal(res.status, 200);
    return (await res.json()) as { id: string; current: boolean }[];
  };
  /** Two sessions of one user, then Redis forgets everything. */
  const twoSessionsThenFlush = async (email: string) => {
    const old = f.client();
    const current = f.client();
    await signInWithOtp(f, old, email);
    await signInWithOtp(f, current, email);
    const oldId = (await validate(old)).principal!.sessionId;
    assert.equal(await f.redis.client.flushdb(), 'OK');
    return { old, current, oldId };
  };

  before(async () => {
    f = await startFixture('redisloss');
    subscriber = await hearRevocations(f, revocations);
    identity = createClient(IdentityService, f.grpcAddress);
  });
  after(async () => {
    identity?.close();
    subscriber?.stop();
    await f?.stop();
  });

  test('nobody is signed out, and the account page lists the session Redis forgot', async () => {
    const { old, current, oldId } = await twoSessionsThenFlush('dokter@rs-demo.test');
    assert.equal((await validate(old)).principal?.sessionId, oldId, 'a flush signs nobody out');
    const sessions = await listed(current);
    const currentId = (await validate(current)).principal!.sessionId;
    assert.deepEqual(
      sessions.map((s) => [s.id, s.current]).sort(),
      [
        [oldId, false],
        [currentId, true],
      ].sort(),
    );
  });

  test('revoke-other-sessions ends a session Redis forgot', async () => {
    const { old, current, oldId } = await twoSessionsThenFlush('admin@rs-demo.test');
    const res = await current.post('/api/auth/revoke-other-sessions');
    assert.equal(res.status, 200);
    await assert.rejects(validate(old), unauthenticated);
    assert.equal(await (await old.fetch('/api/auth/get-session')).json(), null);
    await waitFor('the revocation message', async () => revocations.some((r) => r.sessionIds?.includes(oldId)));
    assert.ok((await validate(current)).principal, 'the current session keeps working');
    assert.deepEqual(
      (await listed(current)).map((s) => s.current),
      [true],
    );
  });

  test('the account page ends, by id, a session Redis forgot', async () => {
    const { old, current, oldId } = await twoSessionsThenFlush('perawat@rs-demo.test');
    assert.ok((await listed(current)).some((s) => s.id === oldId && !s.current));
    assert.equal((await current.post('/api/auth/account/revoke-session', { id: oldId })).status, 200);
    await assert.rejects(validate(old), unauthenticated);
    await waitFor('the revocation message', async () => revocations.some((r) => r.sessionIds?.includes(oldId)));
  });

  test('revoke-sessions ends every session, those Redis forgot included', async () => {
    const { old, current } = await twoSessionsThenFlush('pendaftaran@rs-demo.test');
    assert.equal((await current.post('/api/auth/revoke-sessions')).status, 200);
    await assert.rejects(validate(old), unauthenticated);
    await assert.rejects(validate(current), unauthenticated);
  });

  test('a session ended before Redis lost its data stays ended', async () => {
    const old = f.client();
    const current = f.client();
    await signInWithOtp(f, old, 'auditor@rs-demo.test');
    await signInWithOtp(f, current, 'auditor@rs-demo.test');
    const oldId = (await validate(old)).principal!.sessionId;
    assert.equal((await current.post('/api/auth/revoke-other-sessions')).status, 200);
    assert.equal(await f.redis.client.flushdb(), 'OK');
    await assert.rejects(validate(old), unauthenticated);
    assert.equal(await (await old.fetch('/api/auth/get-session')).json(), null);
    assert.ok(!(await listed(current)).some((s) => s.id === oldId));
  });

  test('deactivation ends and counts the sessions Redis forgot; they stay ended after another loss and reactivation', async () => {
    const email = 'bidan@rs-demo.test';
    const admin = { email: 'admin@rs-demo.test' };
    const since = f.smtp.messages.length;
    await identity.inviteUser({ actor: admin, email, role: 'nurse', name: 'Bidan' });
    await f.smtp.waitForMail(email, since); // the invitation, before any sign-in code
    const { old, current } = await twoSessionsThenFlush(email);
    const userId = (await validate(current)).principal!.userId;

    const res = await identity.deactivateUser({ actor: admin, user: { email } });
    assert.equal(res.sessionsEnded, 2);
    await assert.rejects(validate(old), unauthenticated);
    await assert.rejects(validate(current), unauthenticated);
    await waitFor('the revocation message', async () => revocations.some((r) => r.userId === userId));

    // The "revoked before" marker goes with the rest of Redis: the rows alone keep the sessions ended.
    assert.equal(await f.redis.client.flushdb(), 'OK');
    assert.equal((await identity.reactivateUser({ actor: admin, user: { userId } })).user?.active, true);
    await assert.rejects(validate(old), unauthenticated);
    await assert.rejects(validate(current), unauthenticated);
  });
});
