// Postgres going away gives 503 envelopes quickly (never a hang or a 500) and /readyz false; both
// recover when it returns. And records refuses to start as a role that could read across tenants.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePort, startRelay, startService, throwawayDatabase, waitFor, waitForReady } from '@simrs/platform/testing';
import type { Relay } from '@simrs/platform/testing';
import { signPrincipal } from '@simrs/contracts/principal';
import { appUrlFor, assertEnvelope, dataOf, newPasien } from '../testing/index.ts';
import type { Reply } from '../testing/index.ts';

describe('database unavailable', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  });

  let url: string;
  let principal: string;
  let proxy: Relay;

  before(async () => {
    const db = await throwawayDatabase('records_down');
    cleanup.push(() => db.drop());
    proxy = await startRelay(appUrlFor(db.url));
    cleanup.push(() => proxy.stop());
    const port = await freePort();
    const secret = randomBytes(32).toString('hex');
    const proc = startService('records', 'services/records', {
      HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      DATABASE_URL: proxy.url,
      MIGRATION_DATABASE_URL: db.url,
      PRINCIPAL_SECRET: secret,
      LOG_LEVEL: 'error',
    });
    cleanup.push(() => proc.stop());
    url = `http://127.0.0.1:${port}`;
    await waitForReady(`${url}/readyz`);
    principal = await signPrincipal(
      { userId: 'u1', tenantId: 'rs-demo', role: 'tenant_admin', scopes: ['simrs:read', 'simrs:write'] },
      secret,
      600,
    );
  });

  const list = async (): Promise<Reply> => {
    const res = await fetch(`${url}/trpc/pasien.list`, { headers: { 'x-simrs-principal': principal } });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
  const create = async (n: number): Promise<Reply> => {
    const res = await fetch(`${url}/trpc/pasien.create`, {
      method: 'POST',
      headers: { 'x-simrs-principal': principal, 'content-type': 'application/json' },
      body: JSON.stringify(newPasien(n)),
    });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };

  test('503 quickly while Postgres is away, readiness false, and back to normal after', async () => {
    dataOf(await create(1));
    dataOf(await list());
    proxy.down();
    const t0 = Date.now();
    const e = assertEnvelope(await list(), 503, 'SERVICE_UNAVAILABLE');
    assert.doesNotMatch(e.message, /ECONN|postgres:|at /, 'no internals in the message');
    assertEnvelope(await create(2), 503, 'SERVICE_UNAVAILABLE');
    const rest = await fetch(`${url}/api/v1/pasien`, { headers: { 'x-simrs-principal': principal } });
    assert.equal(rest.status, 503);
    assert.ok(Date.now() - t0 < 8_000, `answered in ${Date.now() - t0} ms`);
    assert.equal((await fetch(`${url}/readyz`)).status, 503);
    assert.equal((await fetch(`${url}/healthz`)).status, 200, 'alive all along');
    proxy.up();
    await waitFor('records to recover', async () => (await list()).status === 200, 15_000);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    dataOf(await create(3));
  });
});

describe('start-up guard', () => {
  for (const [label, user] of [
    ['the owner itself', 'postgres'],
    ['a BYPASSRLS role', 'records_test_bypass'],
  ] as const) {
    test(`records refuses to run as ${label}`, async () => {
      const db = await throwawayDatabase('records_guard');
      try {
        if (user === 'records_test_bypass') {
          const admin = new pg.Client({ connectionString: db.url });
          await admin.connect();
          await admin
            .query(
              "do $$ begin if not exists (select 1 from pg_roles where rolname = 'records_test_bypass') then create role records_test_bypass login bypassrls password 'records_test_bypass'; end if; end $$",
            )
            .catch(() => {}); // a parallel run may have created it first
          await admin.end();
        }
        const privileged = new URL(db.url);
        privileged.username = user;
        if (user === 'records_test_bypass') privileged.password = 'records_test_bypass';
        const proc = startService('records', 'services/records', {
          HOST: '127.0.0.1',
          HTTP_PORT: String(await freePort()),
          DATABASE_URL: privileged.toString(),
          MIGRATION_DATABASE_URL: db.url,
          PRINCIPAL_SECRET: 'x'.repeat(32),
        });
        const code = await new Promise<number | null>((resolve) => proc.child.once('exit', (c) => resolve(c)));
        assert.notEqual(code, 0);
        assert.match(proc.lines.join('\n'), /application role|superuser|BYPASSRLS/);
      } finally {
        await db.drop();
      }
    });
  }
});
