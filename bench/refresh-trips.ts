// Round trips of one token refresh, counted from the services' own traces: the stack exports every
// span to an OTLP receiver in this process, each refresh is sent with its own W3C trace id, and the
// spans of that trace are counted per service and kind (Postgres statements, Redis commands, gRPC
// calls). Every statement the pg driver sends is a span, so the Postgres count is the number of round
// trips to the database (pool connects are left out). Run alone: `node bench/refresh-trips.ts`.
import { randomBytes } from 'node:crypto';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { Browserless } from '../test/support/oauth.ts';
import { otlpEnv, startOtlpReceiver } from '../test/support/otlp.ts';
import type { ReceivedSpan } from '../test/support/otlp.ts';
import { CLIENT, isDb } from '../test/support/traces.ts';
import { seedUsers } from '../test/support/users.ts';
import { printTable } from './load.ts';
import { TENANT } from './records.ts';
import { DOCTOR, refreshFamilies, registerBenchClient } from './refresh.ts';

const REFRESHES = 5;

type Row = Record<string, string | number>;

/** The verb of a pg span ("pg.query:SELECT <database>" -> SELECT); statements are not recorded, by design. */
const operation = (s: ReceivedSpan) => /:(\w+)/.exec(s.name)?.[1] ?? s.name;

function summarise(spans: ReceivedSpan[]): Row {
  const identity = spans.filter((s) => s.service === 'identity' && s.kind === CLIENT);
  const queries = identity.filter((s) => isDb(s, 'postgresql') && !/connect/i.test(s.name));
  const ops = new Map<string, number>();
  for (const q of queries) ops.set(operation(q), (ops.get(operation(q)) ?? 0) + 1);
  return {
    postgres_round_trips: queries.length,
    statements: [...ops.entries()].map(([op, n]) => `${op} x${n}`).join(', '),
    redis_commands: identity.filter((s) => isDb(s, 'redis')).length,
    gateway_redis_commands: spans.filter((s) => s.service === 'gateway' && s.kind === CLIENT && isDb(s, 'redis')).length,
    spans: spans.length,
  };
}

export async function benchRefreshTrips(): Promise<Row[]> {
  const [redis, smtp, otlp] = await Promise.all([startRedisServer(), startSmtpPeer(), startOtlpReceiver()]);
  let stack: Stack | undefined;
  try {
    stack = await startStack({
      postgresUrl: testServerUrl,
      dbPrefix: `b_trips_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      env: { all: { LOG_LEVEL: 'warn', ...otlpEnv(otlp.endpoint) } },
    });
    await seedUsers(stack, [
      { email: `admin@${TENANT}.test`, tenant: TENANT, role: 'tenant_admin' },
      { email: DOCTOR, tenant: TENANT, role: 'doctor' },
    ]);
    const app = await registerBenchClient(stack, TENANT, 'Round trips');
    let [refreshToken] = await refreshFamilies(stack, smtp, app, new Browserless(stack), 1);
    const traces: string[] = [];
    for (let i = 0; i < REFRESHES; i++) {
      const traceId = randomBytes(16).toString('hex');
      traces.push(traceId);
      const res = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken!,
          client_id: app.clientId,
          client_secret: app.clientSecret!,
        }),
      });
      const body = (await res.json()) as { refresh_token?: string };
      if (!body.refresh_token) throw new Error(`refresh failed: ${res.status} ${JSON.stringify(body)}`);
      refreshToken = body.refresh_token;
    }
    await new Promise((r) => setTimeout(r, 2_000)); // batched exports arrive
    // BENCH_TRIPS_SHOW=1 prints the statement texts of the last refresh (they carry no values).
    if (process.env.BENCH_TRIPS_SHOW) {
      for (const s of otlp.spans.filter((x) => x.traceId === traces.at(-1) && isDb(x, 'postgresql')))
        console.log(
          String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? s.name)
            .replace(/\s+/g, ' ')
            .slice(0, 220),
        );
    }
    return traces.map((id, i) => ({ refresh: i + 1, ...summarise(otlp.spans.filter((s) => s.traceId === id)) }));
  } finally {
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop(), otlp.stop()]).catch(() => {});
  }
}

if (import.meta.main) printTable('round trips of one token refresh (from the services’ traces)', await benchRefreshTrips());
