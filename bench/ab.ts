// `AB_BASE_REF=main node bench/ab.ts`: this working tree against another commit, measured in turns.
// On a machine shared with other work, two bench runs a minute apart can differ by a factor of two;
// here both stacks run at once and take turns in short windows (AB_ROUNDS rounds of AB_WINDOW_MS per
// path, the order alternating), so whatever else loads the machine weighs on both alike. Prints req/s
// and each service's CPU milliseconds per request for `pasien.list` (first page) per stack and path
// (AB_PATHS: direct, bearer, cookie). The other commit is unpacked into a temporary directory with this
// tree's node_modules linked, so it must have the same package-lock.json. Nothing here is a test.
import { execFileSync, execSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signPrincipal } from '@simrs/contracts/principal';
import { repoRoot, testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { Browserless, issueRegistrationToken, registerClient } from '../test/support/oauth.ts';
import { seed } from './gateway.ts';
import { cpuSeconds } from './procstat.ts';
import { refreshFamilies } from './refresh.ts';
import { loadFromChild } from './wrk.ts';

const TENANT = 'rs-bench';
const REF = process.env.AB_BASE_REF ?? 'main';
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);
const WINDOW_MS = Number(process.env.AB_WINDOW_MS ?? 3000);
const PATHS = (process.env.AB_PATHS ?? 'direct,bearer').split(',') as Array<'direct' | 'bearer' | 'cookie'>;
const listPath = `/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`;

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

async function prepare(label: string, start: typeof startStack) {
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  const stack: Stack = await start({
    postgresUrl: testServerUrl,
    dbPrefix: `b_ab_${label}_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: {
      all: { LOG_LEVEL: 'warn' },
      gateway: { RATE_LIMIT_PER_MINUTE: '100000000' },
      identity: { TOKEN_LIMIT_PER_IP_PER_MINUTE: '10000000' },
    },
  });
  const stop = async () => {
    await stack.stop().catch(() => {});
    await Promise.all([redis.stop(), smtp.stop()]).catch(() => {});
  };
  try {
    await seed(stack);
    const app = await registerClient(stack, await issueRegistrationToken(stack, `admin@${TENANT}.test`), {
      client_name: 'Benchmark',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const browser = new Browserless(stack);
    const [refresh] = await refreshFamilies(stack, smtp, app, browser, 1);
    const tokenRes = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refresh!,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      }),
    });
    const { access_token: accessToken } = (await tokenRes.json()) as { access_token: string };
    const doctorId = ((await (await browser.fetch('/api/auth/get-session')).json()) as { user: { id: string } }).user.id;
    const principal = await signPrincipal(
      { userId: doctorId, tenantId: TENANT, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
      stack.secrets.principal,
      3600,
    );
    const paths = {
      direct: { url: `${stack.urls.records}${listPath}`, headers: { 'x-simrs-principal': principal } },
      bearer: { url: `${stack.gatewayUrl}${listPath}`, headers: { authorization: `Bearer ${accessToken}` } },
      cookie: { url: `${stack.gatewayUrl}${listPath}`, headers: { cookie: browser.cookie, origin: stack.publicUrl } },
    };
    const pids = { gateway: stack.services.gateway.child.pid!, records: stack.services.records.child.pid! };
    return { label, paths, pids, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const baseDir = unpack(REF);
const stacks: Array<Awaited<ReturnType<typeof prepare>>> = [];
try {
  const { startStack: startBase } = (await import(join(baseDir, 'scripts/lib/stack.ts'))) as { startStack: typeof startStack };
  stacks.push(await prepare(REF.replace(/\W/g, '_'), startBase), await prepare('tree', startStack));
  const totals = new Map<string, { requests: number; seconds: number; records: number; gateway: number }>();
  for (const s of stacks) for (const p of PATHS) await loadFromChild({ ...s.paths[p], connections: 50, durationMs: 2000 });
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of PATHS) {
      for (const s of round % 2 === 0 ? stacks : [...stacks].reverse()) {
        const before = { records: cpuSeconds(s.pids.records), gateway: cpuSeconds(s.pids.gateway) };
        const r = await loadFromChild({ ...s.paths[p], connections: 50, durationMs: WINDOW_MS });
        const t = totals.get(`${s.label} ${p}`) ?? { requests: 0, seconds: 0, records: 0, gateway: 0 };
        t.requests += r.requests;
        t.seconds += r.requests / r.rps;
        t.records += cpuSeconds(s.pids.records) - before.records;
        t.gateway += cpuSeconds(s.pids.gateway) - before.gateway;
        totals.set(`${s.label} ${p}`, t);
      }
    }
  }
  const ms = (cpu: number, requests: number) => ((cpu * 1000) / requests).toFixed(3);
  console.log(`\n${ROUNDS} rounds of ${WINDOW_MS} ms per path and stack, 50 connections\n`);
  console.log('| stack, path | req/s | records CPU ms/req | gateway CPU ms/req |\n|---|---|---|---|');
  for (const [key, t] of totals)
    console.log(`| ${key} | ${Math.round(t.requests / t.seconds)} | ${ms(t.records, t.requests)} | ${ms(t.gateway, t.requests)} |`);
} finally {
  for (const s of stacks) await s.stop();
  rmSync(baseDir, { recursive: true, force: true });
}
