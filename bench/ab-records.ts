// `AB_BASE_DIR=/path/to/other/worktree node bench/ab-records.ts`: records straight (pasien.list) of this
// tree against another worktree's, both compiled and running at once, measured in turns, with the
// database ceiling (pgbench, same statements) taken in every round. Prints req/s, records CPU ms/req,
// its Postgres backends' CPU ms/req and req/s ÷ ceiling, per stack and input.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { signPrincipal } from '@simrs/contracts/principal';
import { repoRoot, testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { recordsAppUrl } from '../scripts/lib/stack.ts';
import type { Stack, startStack } from '../scripts/lib/stack.ts';
import { seed } from './gateway.ts';
import { pasienListStatement, pgbenchCeiling } from './ceiling.ts';
import { cpuBetween, cpuByPid, cpuSeconds } from './procstat.ts';
import { loadFromChild } from './wrk.ts';

const TENANT = 'rs-bench';
const BASE = process.env.AB_BASE_DIR!;
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4);
const SECONDS = Number(process.env.AB_SECONDS ?? 5);
const INPUTS = { first: { limit: 20 }, siti: { q: 'siti', limit: 20 } } as const;
const ONLY = (process.env.AB_INPUTS ?? 'first,siti').split(',') as Array<keyof typeof INPUTS>;
const PROFILE = process.env.AB_PROFILE_DIR;
const listPath = (input: unknown) => `/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(input))}`;

async function prepare(label: string, dir: string, extraEnv: Record<string, string>) {
  execFileSync(process.execPath, [join(dir, 'scripts/build.ts')], { cwd: dir, stdio: 'ignore' });
  const { startStack: start } = (await import(join(dir, 'scripts/lib/stack.ts'))) as { startStack: typeof startStack };
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  const stack: Stack = await start({
    compiled: true,
    postgresUrl: testServerUrl,
    dbPrefix: `b_abr_${label}_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: {
      all: { LOG_LEVEL: 'warn' },
      records: { DB_POOL_MAX: '10', ...extraEnv, ...(PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE}/${label}` } : {}) },
    },
  });
  await seed(stack);
  const principal = await signPrincipal(
    { userId: randomUUID(), tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
    stack.secrets.principal,
    3600,
  );
  const owner = new pg.Client({ connectionString: stack.databases.records });
  await owner.connect();
  const db = new URL(stack.databases.records).pathname.slice(1);
  const backends = async () =>
    (
      await owner.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1 and application_name = 'records'", [db])
    ).rows.map((r) => r.pid);
  const stop = async () => {
    await owner.end();
    await stack.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  };
  return { label, stack, principal, pid: stack.services.records.child.pid!, backends, stop };
}

const envOf = (v: string | undefined) => (v ? (JSON.parse(v) as Record<string, string>) : {});
const stacks = [
  await prepare('base', BASE, envOf(process.env.AB_BASE_ENV)),
  await prepare('tree', repoRoot, envOf(process.env.AB_TREE_ENV)),
];
try {
  const totals = new Map<string, { requests: number; seconds: number; records: number; pg: number; ratios: number[] }>();
  for (const s of stacks)
    for (const k of ONLY)
      await loadFromChild({
        url: `${s.stack.urls.records}${listPath(INPUTS[k])}`,
        headers: { 'x-simrs-principal': s.principal },
        connections: 50,
        durationMs: 2000,
      });
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of ONLY) {
      const ceiling = await pgbenchCeiling(
        recordsAppUrl(stacks[0]!.stack.databases.records),
        TENANT,
        await pasienListStatement(TENANT, INPUTS[k]),
        10,
        SECONDS,
      );
      for (const s of round % 2 === 0 ? stacks : [...stacks].reverse()) {
        const pids = await s.backends();
        const before = { records: cpuSeconds(s.pid), pg: cpuByPid(pids) };
        const r = await loadFromChild({
          url: `${s.stack.urls.records}${listPath(INPUTS[k])}`,
          headers: { 'x-simrs-principal': s.principal },
          connections: 50,
          durationMs: SECONDS * 1000,
        });
        const t = totals.get(`${s.label} ${k}`) ?? { requests: 0, seconds: 0, records: 0, pg: 0, ratios: [] };
        t.requests += r.requests;
        t.seconds += r.requests / r.rps;
        t.records += cpuSeconds(s.pid) - before.records;
        t.pg += cpuBetween(before.pg, cpuByPid(pids));
        t.ratios.push(Math.round((r.rps / ceiling.tps) * 100) / 100);
        totals.set(`${s.label} ${k}`, t);
        console.error(`round ${round} ${s.label} ${k}: ${Math.round(r.rps)} req/s, ceiling ${Math.round(ceiling.tps)}`);
      }
    }
  }
  const ms = (cpu: number, requests: number) => ((cpu * 1000) / requests).toFixed(3);
  console.log(`\n${ROUNDS} rounds of ${SECONDS} s per stack and input, 50 connections, ceiling every round\n`);
  console.log('| stack, input | req/s | records CPU ms/req | postgres CPU ms/req | ratio per round |\n|---|---|---|---|---|');
  for (const [key, t] of totals)
    console.log(
      `| ${key} | ${Math.round(t.requests / t.seconds)} | ${ms(t.records, t.requests)} | ${ms(t.pg, t.requests)} | ${t.ratios.join(', ')} |`,
    );
} finally {
  for (const s of stacks) await s.stop();
}
