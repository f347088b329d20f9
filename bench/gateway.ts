// Gateway benchmark: pasien.list (first page of 20, in a tenant with 300 patients) through the gateway
// with an OAuth bearer token, through the gateway with a session cookie (and an allowed Origin), and
// straight to records with a signed principal; requests/s, p50 and p99 of each, and the ratios
// (targets: gateway >= 0.75 of direct, cookie >= 0.9 of bearer). Then refreshes per second at the
// token endpoint (target >= 300/s): independent refresh-token families, each rotating on every call.
// Real processes on loopback (the same stack as the tests), each load run a few seconds.
// Run alone: `node bench/gateway.ts` (BENCH_GATEWAY_SECONDS, BENCH_GATEWAY_CONNECTIONS to change).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import { signPrincipal } from '@simrs/contracts/principal';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { seedTenant } from '../services/records/src/db/seed.ts';
import { syntheticPasien } from '../services/records/src/pasien/synth.ts';
import { Browserless, codeFlow, authorizeWithFetch, issueRegistrationToken, registerClient } from '../test/support/oauth.ts';
import type { RegisteredClient } from '../test/support/oauth.ts';
import { startSmtpPeer } from '@simrs/platform/smtp-peer';
import { seedUsers } from '../test/support/users.ts';
import { load, percentile, printTable } from './load.ts';
import type { LoadResult } from './load.ts';

const TENANT = 'rs-bench';
const DOCTOR = 'dokter@rs-bench.test';
const SECONDS = Number(process.env.BENCH_GATEWAY_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_GATEWAY_CONNECTIONS ?? 50);
const REFRESH_FAMILIES = Number(process.env.BENCH_REFRESH_FAMILIES ?? 32);
const LIST = `/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`;

type Row = Record<string, string | number>;

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function row(name: string, r: LoadResult): Row {
  return { name, 'req/s': Math.round(r.rps), p50_ms: round(r.p50), p99_ms: round(r.p99), errors: r.errors };
}

/** Refresh-token grants from the authorization code flow (one family each), for `REFRESH_FAMILIES` workers. */
async function refreshFamilies(
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

/** Closed loop: each worker refreshes its own family as fast as the token endpoint answers. */
async function refreshLoad(stack: Stack, app: RegisteredClient, families: string[], seconds: number): Promise<LoadResult> {
  const pool = new Pool(stack.gatewayUrl, { connections: families.length });
  const latencies: number[] = [];
  let errors = 0;
  const warmupEnd = performance.now() + 500;
  const end = warmupEnd + seconds * 1000;
  await Promise.all(
    families.map(async (initial) => {
      let refreshToken = initial;
      while (performance.now() < end) {
        const started = performance.now();
        try {
          const res = await pool.request({
            method: 'POST',
            path: '/api/auth/oauth2/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              refresh_token: refreshToken,
              client_id: app.clientId,
              client_secret: app.clientSecret!,
            }).toString(),
          });
          const body = (await res.body.json()) as { refresh_token?: string };
          if (res.statusCode !== 200 || !body.refresh_token) {
            errors++;
            if (started >= warmupEnd) continue;
            return;
          }
          refreshToken = body.refresh_token;
          if (started >= warmupEnd) latencies.push(performance.now() - started);
        } catch {
          errors++;
          return;
        }
      }
    }),
  );
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}

export async function benchGateway(): Promise<Row[]> {
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack | undefined;
  try {
    stack = await startStack({
      postgresUrl: testServerUrl,
      dbPrefix: `b_gateway_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      env: {
        all: { LOG_LEVEL: 'warn' },
        // The per-caller limit would cap one token at 100 requests/s; the benchmark measures the path.
        gateway: { RATE_LIMIT_PER_MINUTE: '0' },
        identity: { TOKEN_LIMIT_PER_IP_PER_MINUTE: '10000000' },
      },
    });
    await seedUsers(stack, [
      { email: `admin@${TENANT}.test`, tenant: TENANT, role: 'tenant_admin' },
      { email: DOCTOR, tenant: TENANT, role: 'doctor' },
    ]);
    const owner = new pg.Client({ connectionString: stack.databases.records });
    await owner.connect();
    await seedTenant(
      owner,
      TENANT,
      Array.from({ length: 300 }, (_, i) => syntheticPasien(7, i)),
      'bench',
    );
    await owner.end();

    const app = await registerClient(stack, await issueRegistrationToken(stack, `admin@${TENANT}.test`), {
      client_name: 'Benchmark',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const browser = new Browserless(stack);
    const families = await refreshFamilies(stack, smtp, app, browser, REFRESH_FAMILIES + 1);
    const tokenRes = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: families.pop()!,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      }),
    });
    const { access_token: accessToken } = (await tokenRes.json()) as { access_token: string };
    const doctorId = ((await (await browser.fetch('/api/auth/get-session')).json()) as { user: { id: string } }).user.id;
    const principal = await signPrincipal(
      { userId: doctorId, tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
      stack.secrets.principal,
      600,
    );

    const options = { connections: CONNECTIONS, durationMs: SECONDS * 1000, warmupMs: 1000 };
    const paths = {
      direct: { url: `${stack.urls.records}${LIST}`, headers: { 'x-simrs-principal': principal } },
      bearer: { url: `${stack.gatewayUrl}${LIST}`, headers: { authorization: `Bearer ${accessToken}` } },
      cookie: { url: `${stack.gatewayUrl}${LIST}`, headers: { cookie: browser.cookie, origin: stack.publicUrl } },
    };
    // Warm every path up first (JIT, connection pools, Postgres' cache), so that whichever is measured
    // first is not the one paying for it.
    for (const path of Object.values(paths)) await load({ ...path, connections: CONNECTIONS, durationMs: 1500, warmupMs: 0 });
    const direct = await load({ ...paths.direct, ...options });
    const bearer = await load({ ...paths.bearer, ...options });
    const cookie = await load({ ...paths.cookie, ...options });
    const refresh = await refreshLoad(stack, app, families, SECONDS);

    const gatewayRatio = bearer.rps / direct.rps;
    const cookieRatio = cookie.rps / bearer.rps;
    const verdict = (ok: boolean) => (ok ? 'met' : 'SHORT');
    return [
      row('pasien.list straight to records (signed principal)', direct),
      row('pasien.list via gateway, bearer token', bearer),
      row('pasien.list via gateway, session cookie', cookie),
      {
        name: `ratio gateway(bearer)/direct (target >= 0.75): ${verdict(gatewayRatio >= 0.75)}`,
        'req/s': round(gatewayRatio),
        p50_ms: '',
        p99_ms: '',
        errors: '',
      },
      {
        name: `ratio cookie/bearer (target >= 0.9): ${verdict(cookieRatio >= 0.9)}`,
        'req/s': round(cookieRatio),
        p50_ms: '',
        p99_ms: '',
        errors: '',
      },
      { ...row(`token endpoint refreshes, ${families.length} families (target >= 300/s): ${verdict(refresh.rps >= 300)}`, refresh) },
    ];
  } finally {
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  }
}

if (import.meta.main) {
  printTable('gateway: pasien.list through the gateway (bearer, cookie) and straight to records; token refreshes', await benchGateway());
}
