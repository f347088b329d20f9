// Token refreshes: refresh-token families from the authorization code flow, and a closed loop in which
// each worker rotates its own family as fast as the token endpoint answers (used by the gateway bench),
// and `BENCH_ONLY=refresh`: that loop alone, with identity's and the gateway's CPU time per refresh.
// Run alone: `node bench/refresh.ts` (BENCH_REFRESH_SECONDS, BENCH_REFRESH_FAMILIES, BENCH_REFRESH_ROUNDS,
// BENCH_PROFILE_DIR=<dir> to write each service's --cpu-prof there).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import {
  Browserless,
  codeFlow,
  authorizeWithFetch,
  issueRegistrationToken,
  refreshGrantForm,
  registerClient,
} from '../test/support/oauth.ts';
import type { RegisteredClient } from '../test/support/oauth.ts';
import { seedUsers } from '../test/support/users.ts';
import { printTable, summarize } from './load.ts';
import type { LoadResult } from './load.ts';
import { cpuSeconds, measureUsage } from './procstat.ts';
import { conditions } from './wrk.ts';

export const DOCTOR = 'dokter@rs-bench.test';

/** The bench's OAuth client in `tenant` (a confidential native app), registered by the tenant's admin. */
export async function registerBenchClient(stack: Stack, tenant: string, name = 'Benchmark'): Promise<RegisteredClient> {
  return registerClient(stack, await issueRegistrationToken(stack, `admin@${tenant}.test`), {
    client_name: name,
    redirect_uris: ['http://127.0.0.1:9/callback'],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_post',
  });
}

/** An access token from one refresh grant (the family's next refresh token is dropped). */
export async function accessTokenFrom(stack: Stack, app: RegisteredClient, refreshToken: string): Promise<string> {
  const res = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: refreshGrantForm(app, refreshToken),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no access token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Refresh-token grants from the authorization code flow (one family each), for `REFRESH_FAMILIES` workers. */
export async function refreshFamilies(
  stack: Stack,
  smtp: Awaited<ReturnType<typeof startSmtpPeer>>,
  app: RegisteredClient,
  browser: Browserless,
  count: number,
): Promise<string[]> {
  const redirectUri = (app.metadata.redirect_uris as string[])[0]!;
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    // No openid: an integration's refresh (no ID token to sign each time).
    const flow = await codeFlow(app.config, redirectUri, 'simrs:read offline_access');
    const { callback } = await authorizeWithFetch(stack, smtp, browser, flow.url, { email: DOCTOR });
    const res = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        code_verifier: flow.verifier,
        redirect_uri: redirectUri,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      }),
    });
    const body = (await res.json()) as { refresh_token?: string };
    if (!body.refresh_token) throw new Error(`no refresh token: ${JSON.stringify(body)}`);
    tokens.push(body.refresh_token);
  }
  return tokens;
}

/**
 * Closed loop: each worker refreshes its own family as fast as the token endpoint answers. `families`
 * is updated in place with each family's newest refresh token, so a second loop can continue them.
 */
export async function refreshLoad(
  stack: Stack,
  app: RegisteredClient,
  families: string[],
  seconds: number,
  warmupMs = 500,
): Promise<LoadResult> {
  const pool = new Pool(stack.gatewayUrl, { connections: families.length });
  const latencies: number[] = [];
  let errors = 0;
  const warmupEnd = performance.now() + warmupMs;
  const end = warmupEnd + seconds * 1000;
  await Promise.all(
    families.map(async (initial, i) => {
      let refreshToken = initial;
      while (performance.now() < end) {
        const started = performance.now();
        try {
          const res = await pool.request({
            method: 'POST',
            path: '/api/auth/oauth2/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: refreshGrantForm(app, refreshToken).toString(),
          });
          const body = (await res.body.json()) as { refresh_token?: string };
          if (res.statusCode !== 200 || !body.refresh_token) {
            errors++;
            if (started >= warmupEnd) continue;
            return;
          }
          refreshToken = families[i] = body.refresh_token;
          if (started >= warmupEnd) latencies.push(performance.now() - started);
        } catch {
          errors++;
          return;
        }
      }
    }),
  );
  await pool.close();
  return summarize(latencies, errors, seconds);
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * CPU seconds used so far by the Postgres backends serving `databaseUrl` (identity's pool), when the
 * server runs on this machine; undefined otherwise. A backend that ends in between is not counted.
 */
async function postgresBackends(databaseUrl: string): Promise<(() => number | undefined) | undefined> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const pids = rows.map((r) => r.pid);
    const total = () => {
      try {
        return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
      } catch {
        return undefined; // not on this machine, or a backend ended
      }
    };
    return total() === undefined ? undefined : total;
  } finally {
    await db.end();
  }
}

/**
 * Refreshes alone: a warm-up loop, then `rounds` measured loops of `seconds` each, every one with the
 * CPU time identity, the gateway and identity's Postgres backends spent per refresh (from /proc; the
 * warm-up of each loop is left out of both the time and the count, so the figure is CPU per answered
 * refresh).
 */
export async function benchRefresh(): Promise<Array<Record<string, string | number>>> {
  const seconds = Number(process.env.BENCH_REFRESH_SECONDS ?? 5);
  const count = Number(process.env.BENCH_REFRESH_FAMILIES ?? 32);
  const rounds = Number(process.env.BENCH_REFRESH_ROUNDS ?? 3);
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const nodeOptions = [process.env.BENCH_NODE_OPTIONS, profileDir ? `--cpu-prof --cpu-prof-dir=${profileDir}` : undefined]
    .filter(Boolean)
    .join(' ');
  const tenant = 'rs-bench';
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack | undefined;
  try {
    stack = await startStack({
      postgresUrl: testServerUrl,
      dbPrefix: `b_refresh_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      env: { all: { LOG_LEVEL: 'warn', NODE_OPTIONS: nodeOptions }, identity: { TOKEN_LIMIT_PER_IP_PER_MINUTE: '10000000' } },
    });
    const pids = { gateway: stack.services.gateway.child.pid!, identity: stack.services.identity.child.pid! };
    await seedUsers(stack, [
      { email: `admin@${tenant}.test`, tenant, role: 'tenant_admin' },
      { email: DOCTOR, tenant, role: 'doctor' },
    ]);
    const app = await registerBenchClient(stack, tenant);
    const families = await refreshFamilies(stack, smtp, app, new Browserless(stack), count);
    await refreshLoad(stack, app, families, 2, 0); // JIT, pools, Postgres' cache
    const postgres = await postgresBackends(stack.databases.identity);
    const rows: Array<Record<string, string | number>> = [];
    for (let i = 1; i <= rounds; i++) {
      const postgresBefore = postgres?.();
      const { result, usage } = await measureUsage(pids, () => refreshLoad(stack!, app, families, seconds, 0));
      const postgresAfter = postgres?.();
      const postgresCpu = postgresBefore !== undefined && postgresAfter !== undefined ? postgresAfter - postgresBefore : undefined;
      const perRefresh = (s: keyof typeof pids) => (result.requests ? round(((usage.cpu[s] ?? 0) * 1000) / result.requests, 3) : '');
      rows.push({
        name: `token refreshes, ${count} families, round ${i} (target >= 300/s): ${result.rps >= 300 ? 'met' : 'SHORT'}`,
        'req/s': Math.round(result.rps),
        p50_ms: round(result.p50),
        p99_ms: round(result.p99),
        errors: result.errors,
        'identity_cpu_ms/req': perRefresh('identity'),
        'gateway_cpu_ms/req': perRefresh('gateway'),
        // identity's database connections (Postgres backends on this machine)
        'postgres_cpu_ms/req': postgresCpu !== undefined && result.requests ? round((postgresCpu * 1000) / result.requests, 3) : '',
      });
    }
    return rows;
  } finally {
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  }
}

if (import.meta.main) printTable(`token refreshes (${conditions()})`, await benchRefresh());
