// The bench doctor and the ways to pasien.list, shared by the hot-path bench (gateway.ts) and the
// A/B runner (ab.ts): the seeded tenant, and its doctor straight to records, through the gateway with a
// bearer token and with a session cookie.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { signPrincipal } from '@simrs/contracts/principal';
import { syntheticPasien } from '@simrs/records/synth';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { Stack } from '../scripts/lib/stack.ts';
import { Browserless } from '../test/support/oauth.ts';
import { seedUsers } from '../test/support/users.ts';
import { accessTokenFrom, DOCTOR, refreshFamilies, registerBenchClient } from './refresh.ts';
import { TENANT } from './records.ts';

export const listPath = (input: unknown) => `/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(input))}`;

/**
 * The bench tenant: its admin and doctor, and 300 patients registered one after the other through
 * records' own API (so their medical record numbers follow the same order every run)..
 */
export async function seed(stack: Stack): Promise<void> {
  await seedUsers(stack, [
    { email: `admin@${TENANT}.test`, tenant: TENANT, role: 'tenant_admin' },
    { email: DOCTOR, tenant: TENANT, role: 'doctor' },
  ]);
  const principal = await signPrincipal(
    { userId: randomUUID(), tenantId: TENANT, role: 'registration_clerk', scopes: ['simrs:read', 'simrs:write'] },
    stack.secrets.principal,
    600,
  );
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${stack.urls.records}/trpc/pasien.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-simrs-principal': principal },
      body: JSON.stringify(syntheticPasien(7, i)),
    });
    if (res.status !== 200) throw new Error(`pasien.create answered ${res.status}: ${await res.text()}`);
  }
  const owner = new pg.Client({ connectionString: stack.databases.records });
  await owner.connect();
  await owner.query('vacuum analyze records.pasien, records.pasien_nama');
  await owner.end();
}

/** The pids of the Postgres backends records' pool holds open on its database (by application_name). */
export async function recordsBackends(owner: pg.ClientBase, recordsUrl: string): Promise<number[]> {
  const db = new URL(recordsUrl).pathname.slice(1);
  const sql = "select pid from pg_stat_activity where datname = $1 and application_name = 'records'";
  return (await owner.query<{ pid: number }>(sql, [db])).rows.map((r) => r.pid);
}

export interface ListTarget {
  url: string;
  headers: Record<string, string>;
}

/**
 * The bench doctor on every way to pasien.list: a signed principal straight to records, an OAuth bearer
 * token and a session cookie through the gateway. Also `families` refresh-token families of the
 * doctor's for a refresh load..
 */
export async function doctorPaths(stack: Stack, smtp: SmtpPeer, families: number) {
  const app = await registerBenchClient(stack, TENANT);
  const browser = new Browserless(stack);
  const tokens = await refreshFamilies(stack, smtp, app, browser, families + 1);
  const accessToken = await accessTokenFrom(stack, app, tokens.pop()!);
  const doctorId = ((await (await browser.fetch('/api/auth/get-session')).json()) as { user: { id: string } }).user.id;
  const principal = await signPrincipal(
    { userId: doctorId, tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
    stack.secrets.principal,
    3600,
  );
  const paths = (input: unknown): Record<'direct' | 'bearer' | 'cookie', ListTarget> => ({
    direct: { url: `${stack.urls.records}${listPath(input)}`, headers: { 'x-simrs-principal': principal } },
    bearer: { url: `${stack.gatewayUrl}${listPath(input)}`, headers: { authorization: `Bearer ${accessToken}` } },
    cookie: { url: `${stack.gatewayUrl}${listPath(input)}`, headers: { cookie: browser.cookie, origin: stack.publicUrl } },
  });
  return { app, families: tokens, paths };
}
