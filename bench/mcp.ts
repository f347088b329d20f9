// `BENCH_ONLY=mcp`: the MCP server's patient summary as an agent calls it (tools/call through the
// gateway with a token for the MCP resource), beside the same data read through tRPC (one batched GET
// of the five procedures the tool calls, with a token for the API), each with records' and the
// gateway's CPU time per call. Run alone: `node bench/mcp.ts` (BENCH_MCP_SECONDS, BENCH_MCP_CONNECTIONS).
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { mcpClient, PreRegisteredAgent, seedClinicDay } from '../test/support/mcp.ts';
import { authorizeWithFetch, Browserless, issueRegistrationToken, registerClient, tokensFor } from '../test/support/oauth.ts';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { seedUsers } from '../test/support/users.ts';
import { load, printTable } from './load.ts';
import type { LoadOptions } from './load.ts';
import { measureUsage } from './procstat.ts';
import { conditions } from './wrk.ts';

const TENANT = 'rs-mcpbench';
const DOCTOR = `dokter@${TENANT}.test`;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The doctor's tokens: one for the MCP server (as the SDK client gets it), one for the API. */
async function tokens(stack: Stack, smtp: SmtpPeer, redirectUri: string) {
  const app = await registerClient(stack, await issueRegistrationToken(stack, `admin@${TENANT}.test`), {
    client_name: 'Bench agent',
    redirect_uris: [redirectUri],
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    scope: 'openid simrs:read',
  });
  const browser = new Browserless(stack);
  const agent = new PreRegisteredAgent(app.clientId, redirectUri);
  const first = mcpClient(`${stack.publicUrl}/api/v1/mcp`, agent);
  await first.client.connect(first.transport).catch((err: unknown) => {
    if (!(err instanceof UnauthorizedError)) throw err;
  });
  const { callback } = await authorizeWithFetch(stack, smtp, browser, agent.authorizationUrls[0]!, { email: DOCTOR });
  await first.transport.finishAuth(callback.searchParams.get('code')!);
  const api = await tokensFor(stack, smtp, app, browser, DOCTOR, 'openid simrs:read');
  return { mcp: agent.tokens()!.access_token, api: api.access_token };
}

export async function benchMcp(): Promise<Array<Record<string, string | number>>> {
  const durationMs = Number(process.env.BENCH_MCP_SECONDS ?? 5) * 1000;
  const connections = Number(process.env.BENCH_MCP_CONNECTIONS ?? 16);
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack | undefined;
  try {
    stack = await startStack({
      postgresUrl: testServerUrl,
      dbPrefix: `b_mcp_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      env: { all: { LOG_LEVEL: 'warn' }, gateway: { RATE_LIMIT_PER_MINUTE: '0', MCP_CALLS_PER_MINUTE: '0' } },
    });
    await seedUsers(stack, [
      { email: `admin@${TENANT}.test`, tenant: TENANT, role: 'tenant_admin' },
      { email: DOCTOR, tenant: TENANT, role: 'doctor' },
      { email: `perawat@${TENANT}.test`, tenant: TENANT, role: 'nurse' },
    ]);
    const staff = { admin: new Browserless(stack), nurse: new Browserless(stack), doctor: new Browserless(stack) };
    await staff.admin.signIn(smtp, `admin@${TENANT}.test`);
    await staff.nurse.signIn(smtp, `perawat@${TENANT}.test`);
    await staff.doctor.signIn(smtp, DOCTOR);
    const doctorId = ((await (await staff.doctor.fetch('/api/auth/get-session')).json()) as { user: { id: string } }).user.id;
    const day = await seedClinicDay(staff, doctorId);
    const token = await tokens(stack, smtp, 'http://127.0.0.1:9/callback');

    const pasienId = day.pasienId;
    const summaryCall: LoadOptions = {
      url: `${stack.gatewayUrl}/api/v1/mcp`,
      method: 'POST',
      headers: { authorization: `Bearer ${token.mcp}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'patient_summary', arguments: { pasienId } } }),
    };
    const procedures = ['alergi.list', 'diagnosis.list', 'vital.list', 'kunjungan.list', 'pasien.get'];
    const inputs = [{ pasienId, limit: 50 }, { pasienId, limit: 100 }, { pasienId, limit: 50 }, { pasienId, limit: 5 }, { id: pasienId }];
    const batchInput = Object.fromEntries(inputs.map((input, i) => [i, input]));
    const trpcRead: LoadOptions = {
      url: `${stack.gatewayUrl}/trpc/${procedures.join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(batchInput))}`,
      headers: { authorization: `Bearer ${token.api}` },
    };
    const pids = { records: stack.services.records.child.pid!, gateway: stack.services.gateway.child.pid! };
    const rows: Array<Record<string, string | number>> = [];
    const perCall: Record<string, number> = {};
    for (const [name, options] of [
      ['patient_summary tool (MCP tools/call)', summaryCall],
      ['the same reads through tRPC (one batched GET)', trpcRead],
    ] as const) {
      await load({ ...options, connections, durationMs: 1_000, warmupMs: 0 }); // JIT, pools, caches
      const { result, usage } = await measureUsage(pids, () => load({ ...options, connections, durationMs, warmupMs: 0 }));
      const cpuMs = (s: keyof typeof pids) => (result.requests ? ((usage.cpu[s] ?? 0) * 1000) / result.requests : 0);
      perCall[name] = cpuMs('records');
      rows.push({
        name,
        'calls/s': Math.round(result.rps),
        p50_ms: round(result.p50),
        p99_ms: round(result.p99),
        errors: result.errors,
        'records_cpu_ms/call': round(cpuMs('records'), 3),
        'gateway_cpu_ms/call': round(cpuMs('gateway'), 3),
      });
    }
    const [mcpCpu, trpcCpu] = Object.values(perCall) as [number, number];
    const ratio = trpcCpu ? mcpCpu / trpcCpu : NaN;
    rows[0]!.name = `${rows[0]!.name} (target: records' CPU per call <= 2x tRPC's; ${round(ratio)}x): ${ratio <= 2 ? 'met' : 'SHORT'}`;
    return rows;
  } finally {
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  }
}

if (import.meta.main) printTable(`MCP patient summary against tRPC (${conditions()})`, await benchMcp());
