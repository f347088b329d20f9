// The hot-path benchmark, every figure from one run on one machine, back to back:
// 1. the database's ceiling: pgbench sending exactly records' statements for pasien.list (first page of
//    20, and a name search) over as many connections as records' pool holds (ceiling.ts);
// 2. pasien.list straight to records (signed principal), through the gateway with an OAuth bearer
//    token, with a session cookie, and through a bare proxy (bare-proxy.ts: the gateway's limit), 50
//    connections from wrk in its own process (wrk.ts);
// 3. token refreshes at the token endpoint, independent families each rotating on every call;
// with each service's CPU time per request (from /proc, so cores per 10,000 req/s follow) and its RSS
// idle and at its peak under load. Targets are printed, met or SHORT; nothing here is a test.
// Run alone: `node bench/gateway.ts` (BENCH_GATEWAY_SECONDS, BENCH_GATEWAY_CONNECTIONS,
// BENCH_REFRESH_FAMILIES=0 to skip refreshes, BENCH_PROFILE_DIR=<dir> to write each service's --cpu-prof there).
import pg from 'pg';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { build } from '../scripts/build.ts';
import { recordsAppUrl, startStack } from '../scripts/lib/stack.ts';
import type { ServiceName, Stack } from '../scripts/lib/stack.ts';
import { pasienListStatements, pgbenchCeiling } from './ceiling.ts';
import { doctorPaths, listPath, recordsBackends, seed } from './doctor.ts';
import type { ListTarget } from './doctor.ts';
import type { LoadResult } from './load.ts';
import { printTable } from './load.ts';
import os from 'node:os';
import { cpuBetween, cpuByPid, IDLE_WAIT_MS, measureUsage, pidsOf, reapedChildrenCpuSeconds, rssMb } from './procstat.ts';
import type { Usage } from './procstat.ts';
import { startBareProxy } from './bare-proxy.ts';
import type { BareProxy } from './bare-proxy.ts';
import { refreshLoad } from './refresh.ts';
import { TENANT } from './records.ts';
import { conditions, loadFromChild } from './wrk.ts';
import { ratioShown, verdict } from './verdict.ts';

const SECONDS = Number(process.env.BENCH_GATEWAY_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_GATEWAY_CONNECTIONS ?? 50);
const REFRESH_FAMILIES = Number(process.env.BENCH_REFRESH_FAMILIES ?? 32);
/** Records' pool size, and so the ceiling's connection count. */
const POOL = Number(process.env.BENCH_RECORDS_POOL ?? 10);
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** Extra node options for the services (BENCH_NODE_OPTIONS), e.g. to try V8 heap settings. */
const NODE_OPTIONS = [process.env.BENCH_NODE_OPTIONS, PROFILE_DIR ? `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` : undefined]
  .filter(Boolean)
  .join(' ');
const SERVICES: ServiceName[] = ['gateway', 'identity', 'records', 'notifier'];
const FIRST_PAGE = { limit: 20 };
const NAME_SEARCH = { q: 'siti', limit: 20 };

type Row = Record<string, string | number>;

/** The machine's cores: what every process on a path shares. */
const CORES = os.availableParallelism();

/**
 * CPU seconds of the processes on a path besides the four services: records' Postgres backends (its
 * pool's connections, by application_name; the server's shared background writers are left out, as
 * other databases on the same server use them too), the private Redis (rate limit, refused count)
 * and the load generator.
 */
interface PathCpu {
  postgres: number;
  redis: number;
  wrk: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** CPU milliseconds per request of every process on the path, and their sum. */
function perRequest(r: LoadResult, usage: Usage, path: PathCpu) {
  const ms = (seconds: number) => (r.requests > 0 ? (seconds * 1000) / r.requests : 0);
  const each: Record<string, number> = {};
  for (const s of SERVICES) each[s] = ms(usage.cpu[s] ?? 0);
  for (const [name, seconds] of Object.entries(path)) each[name] = ms(seconds);
  return { each, all: Object.values(each).reduce((a, b) => a + b, 0) };
}

/** One load row: throughput, latency, and CPU milliseconds per request of each process on the path. */
function row(name: string, r: LoadResult, usage?: Usage, path?: PathCpu): Row {
  const out: Row = { name, 'req/s': Math.round(r.rps), p50_ms: round(r.p50), p99_ms: round(r.p99), errors: r.errors };
  const cpu = usage && path ? perRequest(r, usage, path) : undefined;
  for (const s of ['gateway', 'identity', 'records', 'postgres', 'redis', 'wrk'] as const) {
    out[`${s}_cpu_ms/req`] = cpu
      ? round(cpu.each[s]!, 3)
      : usage && r.requests > 0
        ? round(((usage.cpu[s] ?? 0) * 1000) / r.requests, 3)
        : '';
  }
  out['all_cpu_ms/req'] = cpu ? round(cpu.all, 3) : '';
  return out;
}

/** Requests per second the machine's cores allow when the path's processes together cost `allMs` each. */
const cpuBound = (allMs: number) => (CORES * 1000) / allMs;

const ratioRow = (name: string, ratio: number, target: number): Row => ({
  name: `${name} (target >= ${target}): ${verdict(ratio >= target)}`,
  'req/s': ratioShown(ratio, 'atLeast'),
});

type Measured = { result: LoadResult; usage: Usage; pathCpu: PathCpu };

/**
 * What the machine allows, beside the 0.85 target: with every process of a path (load generator,
 * gateway, records, its Postgres backends, Redis) sharing the same cores, a path cannot go faster than
 * cores ÷ (the sum of their CPU per request), and the direct path is also held by records' one thread
 * (1000 ms ÷ records' CPU per request, roughly: its CPU counts its helper threads too). So a short
 * bearer ÷ direct is either the gateway's own cost (bearer far below its CPU bound) or the cores being
 * full (bearer at its bound, which is below 0.85 of direct).
 */
function machineBoundRows(direct: Measured, bearer: Measured): Row[] {
  const d = perRequest(direct.result, direct.usage, direct.pathCpu);
  const b = perRequest(bearer.result, bearer.usage, bearer.pathCpu);
  const directBound = Math.min(cpuBound(d.all), 1000 / d.each.records!);
  const bearerBound = cpuBound(b.all);
  const others = b.all - b.each.gateway!;
  const ms = (n: number) => round(n, 3);
  // Cores a path kept busy during its run: near CORES, the machine was full; well below it with a high
  // load average, other work had the cores (then compare the paths at equal CPU, the row after next).
  const used = (m: Measured, all: number) => round((m.result.rps * all) / 1000);
  const allowed = bearerBound / directBound;
  return [
    {
      name: `direct path, bound on this machine = min(${CORES} cores ÷ ${ms(d.all)} ms all processes, records' thread 1000 ÷ ${ms(d.each.records!)} ms)`,
      'req/s': Math.round(directBound),
    },
    {
      name: `bearer path, CPU bound on this machine = ${CORES} cores ÷ ${ms(b.all)} ms all processes (gateway ${ms(b.each.gateway!)}, records ${ms(b.each.records!)}, postgres ${ms(b.each.postgres!)}, redis ${ms(b.each.redis!)}, wrk ${ms(b.each.wrk!)})`,
      'req/s': Math.round(bearerBound),
    },
    { name: `cores the paths kept busy (of ${CORES}): direct | bearer`, 'req/s': `${used(direct, d.all)} | ${used(bearer, b.all)}` },
    {
      name: 'measured ÷ bound (near 1: held by the machine): direct | bearer',
      'req/s': `${round(direct.result.rps / directBound)} | ${round(bearer.result.rps / bearerBound)}`,
    },
    {
      name: `highest bearer ÷ direct this machine allows = bearer's bound ÷ direct's bound (target 0.85: ${allowed >= 0.85 ? 'reachable' : 'out of reach'})`,
      'req/s': round(allowed),
    },
    { name: 'bearer ÷ direct on equal cores (a shared machine) = direct ÷ bearer CPU ms of all processes', 'req/s': round(d.all / b.all) },
    { name: "gateway's share of the bearer path's CPU", 'req/s': round(b.each.gateway! / b.all) },
    {
      // The gateway's CPU per request at which the bearer path's bound is 0.85 of direct's, the other
      // processes costing what they did (negative: out of reach whatever the gateway costs).
      name: `gateway CPU ms/req for 0.85 on this machine = ${CORES * 1000} ÷ (0.85 × direct's bound) − ${ms(others)} ms of the other processes (now ${ms(b.each.gateway!)})`,
      'req/s': round((CORES * 1000) / (0.85 * directBound) - others, 3),
    },
  ];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Pids = Record<string, number>;
type Mb = Record<string, number>;
const rssNow = (pids: Pids): Mb => Object.fromEntries(SERVICES.map((s) => [s, rssMb(pids[s]!)]));
/** Raises each service's peak RSS to what a run saw. */
const raisePeak = (peak: Mb, usage: Usage) => {
  for (const s of SERVICES) peak[s] = Math.max(peak[s]!, usage.peakRss[s]!);
};

/** The services as the images run them: compiled to dist/ (scripts/build.ts), which memory depends on. */
async function startBenchStack(redisUrl: string, smtpUrl: string): Promise<Stack> {
  build();
  return startStack({
    compiled: true,
    postgresUrl: testServerUrl,
    dbPrefix: `b_gateway_${Date.now()}_`,
    redisUrl,
    smtpUrl,
    env: {
      all: { LOG_LEVEL: 'warn', NODE_OPTIONS },
      // The per-caller limit stays on (its Redis round trip is part of the path), set high enough
      // that one token is never refused.
      gateway: { RATE_LIMIT_PER_MINUTE: '100000000' },
      identity: { TOKEN_LIMIT_PER_IP_PER_MINUTE: '10000000' },
      records: { DB_POOL_MAX: String(POOL) },
    },
  });
}

type Paths = Awaited<ReturnType<typeof doctorPaths>>['paths'];

/**
 * Warm every path up first (JIT, connection pools, Postgres' cache), so that whichever is measured
 * first is not the one paying for it. The peak RSS seen so far.
 */
async function warmUp(pids: Pids, paths: Paths): Promise<Mb> {
  const warmup = await measureUsage(pids, async () => {
    for (const path of [...Object.values(paths(FIRST_PAGE)), paths(NAME_SEARCH).direct])
      await loadFromChild({ ...path, connections: CONNECTIONS, durationMs: 2000 });
  });
  return { ...warmup.usage.peakRss };
}

/** A load on one path, with the CPU of every process on it and the services' peak RSS kept in `peak`. */
function pathMeasurer(stack: Stack, owner: pg.ClientBase, redisPort: number, pids: Pids, peak: Mb) {
  const redisPids = pidsOf('redis-server', `:${redisPort}`);
  const options = { connections: CONNECTIONS, durationMs: SECONDS * 1000 };
  return async (path: ListTarget): Promise<Measured> => {
    // Records' backends as they are now (its pool keeps them open between runs; one closed during the
    // run is left out, one opened during it is not seen: either shows as a lower postgres figure).
    const backends = await recordsBackends(owner, stack.databases.records);
    const before = { pg: cpuByPid(backends), redis: cpuByPid(redisPids), wrk: reapedChildrenCpuSeconds() };
    const { result, usage } = await measureUsage(pids, () => loadFromChild({ ...path, ...options }));
    const pathCpu: PathCpu = {
      postgres: cpuBetween(before.pg, cpuByPid(backends)),
      redis: cpuBetween(before.redis, cpuByPid(redisPids)),
      wrk: reapedChildrenCpuSeconds() - before.wrk,
    };
    raisePeak(peak, usage);
    return { result, usage, pathCpu };
  };
}

type Measure = ReturnType<typeof pathMeasurer>;

/**
 * The bare proxy on the same load, connections and answer as the bearer path, and the gateway's CPU per
 * request against its own (bearer: the target; cookie: for information).
 */
async function bareProxyRows(
  bare: BareProxy,
  input: unknown,
  paths: Paths,
  bearer: Measured,
  cookie: Measured,
  measured: Measure,
): Promise<Row[]> {
  const target = { url: `${bare.url}${listPath(input)}`, headers: paths(input).bearer.headers };
  const answer = async (t: ListTarget) => (await fetch(t.url, { headers: t.headers })).text();
  const [viaGateway, viaBare] = [await answer(paths(input).bearer), await answer(target)];
  if (viaGateway !== viaBare) throw new Error(`the bare proxy's answer differs from the gateway's:\n${viaBare.slice(0, 300)}`);
  const proxied = await measured(target);
  const cpu = (m: Measured, name: string) => (m.result.requests > 0 ? ((m.usage.cpu[name] ?? 0) * 1000) / m.result.requests : 0);
  const bareMs = cpu(proxied, 'bare');
  const ratio = (m: Measured) => cpu(m, 'gateway') / bareMs;
  const all = perRequest(proxied.result, proxied.usage, proxied.pathCpu).all + bareMs;
  return [
    {
      ...row(
        'pasien.list first page via a bare proxy (node:http + undici, no checks, no telemetry)',
        proxied.result,
        proxied.usage,
        proxied.pathCpu,
      ),
      'all_cpu_ms/req': round(all, 3),
      'bare_proxy_cpu_ms/req': round(bareMs, 3),
    },
    {
      name: `gateway CPU ÷ bare-proxy CPU per request, bearer (${round(cpu(bearer, 'gateway'), 3)} ÷ ${round(bareMs, 3)} ms; target at most 2×): ${verdict(ratio(bearer) <= 2)}`,
      'req/s': ratioShown(ratio(bearer), 'atMost'),
    },
    { name: 'gateway CPU ÷ bare-proxy CPU per request, session cookie (information)', 'req/s': round(ratio(cookie)) },
  ];
}

/** The gateway's paths (bearer token, session cookie) against the direct one, and what the machine allows. */
async function throughGatewayRows(
  label: string,
  input: unknown,
  direct: Measured,
  paths: Paths,
  measured: Measure,
  bare: BareProxy,
): Promise<Row[]> {
  const bearer = await measured(paths(input).bearer);
  const cookie = await measured(paths(input).cookie);
  const bearerRatio = bearer.result.rps / direct.result.rps;
  const cookieRatio = cookie.result.rps / bearer.result.rps;
  // Cores per 10,000 req/s: CPU seconds per request x 10,000.
  const cores = (u: Usage, r: LoadResult, s: string) => round(((u.cpu[s] ?? 0) / r.requests) * 10_000, 2);
  return [
    row(`pasien.list ${label} via gateway, bearer token`, bearer.result, bearer.usage, bearer.pathCpu),
    row(`pasien.list ${label} via gateway, session cookie`, cookie.result, cookie.usage, cookie.pathCpu),
    ...(await bareProxyRows(bare, input, paths, bearer, cookie, measured)),
    ratioRow('ratio gateway(bearer)/direct (information)', bearerRatio, 0.85),
    ratioRow('ratio cookie/bearer', cookieRatio, 0.9),
    ...machineBoundRows(direct, bearer),
    {
      name: 'cores per 10,000 req/s (first page): records (direct) | gateway (bearer) | gateway+identity (cookie)',
      'req/s': `${cores(direct.usage, direct.result, 'records')} | ${cores(bearer.usage, bearer.result, 'gateway')} | ${round(
        cores(cookie.usage, cookie.result, 'gateway') + cores(cookie.usage, cookie.result, 'identity'),
      )}`,
    },
  ];
}

/** pasien.list's first page (every path) and a name search (records only), each against the database's ceiling. */
async function listRows(stack: Stack, paths: Paths, measured: Measure, bare: BareProxy): Promise<Row[]> {
  const appUrl = recordsAppUrl(stack.databases.records);
  const rows: Row[] = [];
  const [firstPage, nameSearch] = await pasienListStatements(stack, TENANT, [FIRST_PAGE, NAME_SEARCH]);
  const cases = [
    { label: 'first page', input: FIRST_PAGE, statement: firstPage!, through: true },
    { label: 'name search "siti"', input: NAME_SEARCH, statement: nameSearch!, through: false },
  ];
  for (const c of cases) {
    // The ceiling and the paths back to back, so that whatever else loads the machine weighs on both.
    const ceiling = await pgbenchCeiling(appUrl, TENANT, c.statement, POOL, SECONDS);
    rows.push({ name: `database ceiling, pasien.list ${c.label} (pgbench, ${POOL} connections)`, 'req/s': Math.round(ceiling.tps) });
    const direct = await measured(paths(c.input).direct);
    rows.push(row(`pasien.list ${c.label} straight to records`, direct.result, direct.usage, direct.pathCpu));
    rows.push(ratioRow(`ratio records/database ceiling, ${c.label}`, direct.result.rps / ceiling.tps, 0.5));
    if (c.through) rows.push(...(await throughGatewayRows(c.label, c.input, direct, paths, measured, bare)));
  }
  return rows;
}

/** Token refreshes across the doctor's families, the services' peak RSS kept in `peak`. */
async function refreshRow(stack: Stack, app: Awaited<ReturnType<typeof doctorPaths>>['app'], families: string[], pids: Pids, peak: Mb) {
  const refresh = await measureUsage(pids, () => refreshLoad(stack, app, families, SECONDS));
  raisePeak(peak, refresh.usage);
  return row(
    `token refreshes, ${families.length} families (target >= 300/s): ${verdict(refresh.result.rps >= 300)}`,
    refresh.result,
    refresh.usage,
  );
}

function printMemory(idle: Mb, peak: Mb, after5: Mb, after: Mb): void {
  printTable(
    'memory per service (RSS, MB; idle at start and 35 s after the last load; targets: idle <= 120, under load <= 200)',
    SERVICES.map((s) => ({
      service: s,
      idle_at_start: idle[s]!,
      peak_under_load: peak[s]!,
      after_5s: after5[s]!,
      idle_after: after[s]!,
      verdict: `${verdict(Math.max(idle[s]!, after[s]!) <= 120)} idle, ${verdict(peak[s]! <= 200)} under load`,
    })),
  );
}

export async function benchGateway(): Promise<Row[]> {
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack | undefined;
  let bare: BareProxy | undefined;
  try {
    stack = await startBenchStack(redis.url, smtp.url);
    const pids: Pids = Object.fromEntries(SERVICES.map((s) => [s, stack!.services[s].child.pid!]));
    await seed(stack);
    // Idle: started, migrated, seeded, not yet asked for anything, and left alone for 35 s as after the
    // load (startup is a busy spell too: a service gives memory back after 30 quiet seconds, reclaim.ts).
    await sleep(IDLE_WAIT_MS);
    const idle = rssNow(pids);

    const { app, families, paths } = await doctorPaths(stack, smtp, REFRESH_FAMILIES);
    const peak = await warmUp(pids, paths);
    // The doctor's principal of the direct path, signed with the stack's secret (bare-proxy.ts says why).
    bare = await startBareProxy(stack.urls.records, paths(FIRST_PAGE).direct.headers['x-simrs-principal']!);
    await loadFromChild({ url: `${bare.url}${listPath(FIRST_PAGE)}`, connections: CONNECTIONS, durationMs: 2000 });
    const owner = new pg.Client({ connectionString: stack.databases.records });
    await owner.connect();
    const rows = await listRows(stack, paths, pathMeasurer(stack, owner, redis.port, { ...pids, bare: bare.pid }, peak), bare);
    await owner.end();
    if (families.length > 0) rows.push(await refreshRow(stack, app, families, pids, peak));
    // Idle again after the load: what the services keep, 5 s after (V8 still holds its pages) and 35 s
    // after (each has had 30 quiet seconds to give them back, reclaim.ts).
    await sleep(5000);
    const after5 = rssNow(pids);
    await sleep(IDLE_WAIT_MS - 5000);
    printMemory(idle, peak, after5, rssNow(pids));
    return rows;
  } finally {
    await bare?.stop();
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  }
}

if (import.meta.main) {
  const rows = await benchGateway();
  printTable(`hot paths against the database's ceiling (${conditions()})`, rows);
}
