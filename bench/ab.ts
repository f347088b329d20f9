// `node bench/ab.ts`: this working tree against another, both stacks running at once and measured in
// turns. On a machine shared with other work, two bench runs a minute apart can differ by a factor of
// two; taking turns in short windows (AB_ROUNDS rounds of AB_WINDOW_MS per path and tree, the order
// alternating) makes whatever else loads the machine weigh on both alike. Nothing here is a test.
//
// The other tree: AB_BASE_DIR (another worktree, as it is), or AB_BASE_REF (a commit, default main,
// unpacked into a temporary directory with this tree's node_modules linked, so it must have the same
// package-lock.json). Two modes (AB_MODE):
//   paths (default)  pasien.list (first page) by each path of AB_PATHS (direct, bearer, cookie), or
//                    `refresh`: a closed loop of token refreshes through the gateway, AB_REFRESH_FAMILIES
//                    families (default 16) each rotating its own refresh token on every call. req/s and
//                    records', the gateway's and identity's CPU milliseconds per request.
//   records          pasien.list straight to records for each input of AB_INPUTS (first, siti), with the
//                    database's ceiling (pgbench, ceiling.ts) taken in every round: req/s, records' and
//                    its Postgres backends' CPU milliseconds per request, req/s ÷ ceiling per round.
// AB_AT_ONCE=1 loads the trees at the same time, each by its own load generator, instead of in turns: on a
// machine so loaded that one turn and the next differ by a factor of two, the two trees then see the same
// load, and the figures per round are paired (the ceiling, in records mode, is still taken alone).
// AB_COMPILED=1 runs both trees compiled, as the images do (the default in records mode; 0 runs the
// sources). AB_BASE_ENV and AB_TREE_ENV (JSON) add settings to each tree's records, AB_BASE_ALL_ENV and
// AB_TREE_ALL_ENV to every service of it (the allocator's, say); AB_PROFILE_DIR writes records' --cpu-prof there.
import { execFileSync, execSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { signPrincipal } from '@simrs/contracts/principal';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { repoRoot } from '../scripts/lib/paths.ts';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { recordsAppUrl } from '../scripts/lib/stack.ts';
import type { Stack, startStack } from '../scripts/lib/stack.ts';
import { pasienListStatements, pgbenchCeiling } from './ceiling.ts';
import { doctorPaths, listPath, recordsBackends, seed } from './doctor.ts';
import type { ListTarget } from './doctor.ts';
import { cpuBetween, cpuByPid, cpuSeconds } from './procstat.ts';
import { TENANT } from './records.ts';
import { refreshLoad } from './refresh.ts';
import type { LoadResult } from './load.ts';
import { loadFromChild } from './wrk.ts';

const RECORDS_MODE = process.env.AB_MODE === 'records';
if (!RECORDS_MODE && (process.env.AB_MODE ?? 'paths') !== 'paths') throw new Error('AB_MODE is paths or records');
const ROUNDS = Number(process.env.AB_ROUNDS ?? (RECORDS_MODE ? 4 : 6));
const WINDOW_MS = Number(process.env.AB_WINDOW_MS ?? (RECORDS_MODE ? 5000 : 3000));
const COMPILED = (process.env.AB_COMPILED ?? (RECORDS_MODE ? '1' : '0')) === '1';
const CONNECTIONS = 50;
/** Records' pool, and so the ceiling's connection count. */
const POOL = 10;
const INPUTS: Record<string, unknown> = { first: { limit: 20 }, siti: { q: 'siti', limit: 20 } };
const KEYS = (RECORDS_MODE ? (process.env.AB_INPUTS ?? 'first,siti') : (process.env.AB_PATHS ?? 'direct,bearer')).split(',');
const PROFILE = process.env.AB_PROFILE_DIR;
const REFRESH = !RECORDS_MODE && KEYS.includes('refresh');
const REFRESH_FAMILIES = Number(process.env.AB_REFRESH_FAMILIES ?? 16);
const AT_ONCE = process.env.AB_AT_ONCE === '1';

interface Tree {
  label: string;
  stack: Stack;
  /** pasien.list by each key of AB_PATHS or AB_INPUTS (`refresh` has none: see load). */
  targets: Record<string, ListTarget>;
  /** One window of load on a key: wrk on its target, or the refresh loop for `refresh`. */
  load(key: string, durationMs: number): Promise<LoadResult>;
  /** Starts counting CPU; the returned function gives each process's CPU seconds since. */
  meter(): Promise<() => Record<string, number>>;
  stop(): Promise<void>;
}

/** The commit unpacked next to this tree's node_modules (workspace links pointing into the copy). */
function unpack(ref: string): string {
  const lock = execFileSync('git', ['show', `${ref}:package-lock.json`], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (lock !== readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'))
    throw new Error(`${ref} has other dependencies: compare it by hand`);
  const dir = mkdtempSync(join(tmpdir(), 'simrs-ab-'));
  execSync(`git archive ${JSON.stringify(ref)} | tar -x -C ${JSON.stringify(dir)}`, { cwd: repoRoot });
  const modules = join(repoRoot, 'node_modules');
  execFileSync('mkdir', [join(dir, 'node_modules')]);
  for (const entry of readdirSync(modules)) {
    if (entry === '@simrs') cpSync(join(modules, entry), join(dir, 'node_modules', entry), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(join(modules, entry), join(dir, 'node_modules', entry));
  }
  return dir;
}

type Loads = Pick<Tree, 'targets' | 'load'>;

const listLoad = (targets: Record<string, ListTarget>) => (key: string, durationMs: number) =>
  loadFromChild({ ...targets[key]!, connections: CONNECTIONS, durationMs });

/**
 * What is measured on a tree: records straight (records mode) or every path of AB_PATHS, `refresh`
 * being the doctor's refresh-token families, each rotated on every call (a closed loop rather than
 * one request repeated; the families continue from one window to the next).
 */
async function loadsOf(stack: Stack, smtp: Awaited<ReturnType<typeof startSmtpPeer>>): Promise<Loads> {
  if (!RECORDS_MODE) {
    const doctor = await doctorPaths(stack, smtp, REFRESH ? REFRESH_FAMILIES : 0);
    const paths = doctor.paths(INPUTS.first);
    const targets = Object.fromEntries(KEYS.filter((k) => k !== 'refresh').map((k) => [k, paths[k as keyof typeof paths]]));
    const list = listLoad(targets);
    const load = (key: string, durationMs: number) =>
      key === 'refresh' ? refreshLoad(stack, doctor.app, doctor.families, durationMs / 1000, 0) : list(key, durationMs);
    return { targets, load };
  }
  const principal = await signPrincipal(
    { userId: randomUUID(), tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
    stack.secrets.principal,
    3600,
  );
  const target = (k: string) => ({ url: `${stack.urls.records}${listPath(INPUTS[k])}`, headers: { 'x-simrs-principal': principal } });
  const targets = Object.fromEntries(KEYS.map((k) => [k, target(k)]));
  return { targets, load: listLoad(targets) };
}

/** CPU seconds of records, the gateway and identity (paths mode) or of records and its Postgres backends (records mode). */
async function meterOf(stack: Stack): Promise<{ meter: Tree['meter']; close(): Promise<void> }> {
  const pids = { records: stack.services.records.child.pid!, gateway: stack.services.gateway.child.pid! };
  if (!RECORDS_MODE) {
    const services = { ...pids, identity: stack.services.identity.child.pid! };
    const cpu = () => Object.fromEntries(Object.entries(services).map(([name, pid]) => [name, cpuSeconds(pid)]));
    const meter = async () => {
      const before = cpu();
      return () => Object.fromEntries(Object.entries(cpu()).map(([name, s]) => [name, s - before[name]!]));
    };
    return { meter, close: async () => {} };
  }
  const owner = new pg.Client({ connectionString: stack.databases.records });
  await owner.connect();
  const meter = async () => {
    const backends = await recordsBackends(owner, stack.databases.records);
    const before = { records: cpuSeconds(pids.records), postgres: cpuByPid(backends) };
    return () => ({ records: cpuSeconds(pids.records) - before.records, postgres: cpuBetween(before.postgres, cpuByPid(backends)) });
  };
  return { meter, close: () => owner.end() };
}

/** The stack of the tree in `dir`, started with that tree's own stack runner, seeded, its targets ready. */
async function startTree(label: string, dir: string, recordsEnv: Record<string, string>, allEnv: Record<string, string>): Promise<Tree> {
  if (COMPILED) execFileSync(process.execPath, [join(dir, 'scripts/build.ts')], { cwd: dir, stdio: 'ignore' });
  const { startStack: start } = (await import(join(dir, 'scripts/lib/stack.ts'))) as { startStack: typeof startStack };
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack | undefined;
  let metered: Awaited<ReturnType<typeof meterOf>> | undefined;
  const stop = async () => {
    await metered?.close().catch(() => {});
    await stack?.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  };
  try {
    const profile: Record<string, string> = PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE}/${label}` } : {};
    stack = await start({
      compiled: COMPILED,
      // Two stacks starting side by side on a loaded 2-core machine can take longer than the default 30 s.
      readyTimeoutMs: 120_000,
      postgresUrl: testServerUrl,
      dbPrefix: `b_ab_${label}_${Date.now()}_`,
      redisUrl: redis.url,
      smtpUrl: smtp.url,
      env: {
        all: { LOG_LEVEL: 'warn', ...allEnv },
        gateway: { RATE_LIMIT_PER_MINUTE: '100000000' },
        identity: { TOKEN_LIMIT_PER_IP_PER_MINUTE: '10000000' },
        records: { DB_POOL_MAX: String(POOL), ...recordsEnv, ...profile },
      },
    });
    await seed(stack);
    metered = await meterOf(stack);
    return { label, stack, ...(await loadsOf(stack, smtp)), meter: metered.meter, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

interface Total {
  requests: number;
  seconds: number;
  cpu: Record<string, number>;
  ratios: number[];
}

/** Every round: per key, the ceiling (records mode), then each tree for one window, the order alternating. */
async function measure(trees: Tree[]): Promise<Map<string, Total>> {
  const totals = new Map<string, Total>();
  const statements = RECORDS_MODE
    ? await pasienListStatements(
        trees[0]!.stack,
        TENANT,
        KEYS.map((k) => INPUTS[k]),
      )
    : [];
  const ceilingUrl = recordsAppUrl(trees[0]!.stack.databases.records);
  const seconds = Math.max(1, Math.round(WINDOW_MS / 1000));
  for (const tree of trees) for (const k of KEYS) await tree.load(k, 2000);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, k] of KEYS.entries()) {
      const ceiling = RECORDS_MODE ? await pgbenchCeiling(ceilingUrl, TENANT, statements[i]!, POOL, seconds) : undefined;
      const window = async (tree: Tree) => {
        const spent = await tree.meter();
        const r = await tree.load(k, WINDOW_MS);
        return { r, cpu: spent() };
      };
      const order = round % 2 === 0 ? trees : [...trees].reverse();
      const windows = AT_ONCE ? await Promise.all(order.map(window)) : [];
      for (const [j, tree] of order.entries()) {
        const { r, cpu } = AT_ONCE ? windows[j]! : await window(tree);
        const t = totals.get(`${tree.label} ${k}`) ?? { requests: 0, seconds: 0, cpu: {}, ratios: [] };
        t.requests += r.requests;
        t.seconds += r.requests / r.rps;
        for (const [name, s] of Object.entries(cpu)) t.cpu[name] = (t.cpu[name] ?? 0) + s;
        if (ceiling) t.ratios.push(Math.round((r.rps / ceiling.tps) * 100) / 100);
        totals.set(`${tree.label} ${k}`, t);
        const against = ceiling ? `, ceiling ${Math.round(ceiling.tps)}` : '';
        console.error(`round ${round} ${tree.label} ${k}: ${Math.round(r.rps)} req/s${against}`);
      }
    }
  }
  return totals;
}

function print(totals: Map<string, Total>): void {
  const processes = [...new Set([...totals.values()].flatMap((t) => Object.keys(t.cpu)))];
  const columns = ['req/s', ...processes.map((p) => `${p} CPU ms/req`), ...(RECORDS_MODE ? ['req/s ÷ ceiling per round'] : [])];
  const ms = (cpu: number, requests: number) => ((cpu * 1000) / requests).toFixed(3);
  const refresh = REFRESH ? ` (refresh: ${REFRESH_FAMILIES} families, one request each at a time)` : '';
  console.log(
    `\n${ROUNDS} rounds of ${WINDOW_MS} ms per ${RECORDS_MODE ? 'input' : 'path'} and tree, ${CONNECTIONS} connections${refresh}\n`,
  );
  console.log(`| tree, ${RECORDS_MODE ? 'input' : 'path'} | ${columns.join(' | ')} |\n|---|${columns.map(() => '---|').join('')}`);
  for (const [key, t] of totals) {
    const cells = [Math.round(t.requests / t.seconds), ...processes.map((p) => ms(t.cpu[p] ?? 0, t.requests))];
    if (RECORDS_MODE) cells.push(t.ratios.join(', '));
    console.log(`| ${key} | ${cells.join(' | ')} |`);
  }
}

const envOf = (v: string | undefined) => (v ? (JSON.parse(v) as Record<string, string>) : {});
const baseRef = process.env.AB_BASE_DIR ? undefined : (process.env.AB_BASE_REF ?? 'main');
const baseDir = process.env.AB_BASE_DIR ?? unpack(baseRef!);
const trees: Tree[] = [];
try {
  trees.push(
    await startTree(baseRef?.replace(/\W/g, '_') ?? 'base', baseDir, envOf(process.env.AB_BASE_ENV), envOf(process.env.AB_BASE_ALL_ENV)),
  );
  trees.push(await startTree('tree', repoRoot, envOf(process.env.AB_TREE_ENV), envOf(process.env.AB_TREE_ALL_ENV)));
  print(await measure(trees));
} finally {
  for (const tree of trees) await tree.stop();
  if (baseRef) rmSync(baseDir, { recursive: true, force: true });
}
