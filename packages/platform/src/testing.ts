// Helpers for tests and the local launcher: loopback ports reserved machine-wide, real child processes
// for services, throwaway databases. Nothing here is imported by production code.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseUrl, ensureDatabase } from './db.ts';
import { GC_FLAG } from './reclaim.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The Postgres server tests use: DATABASE_URL when set, else the machine's local server. */
export const testServerUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const testRedisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// ---- ports ----------------------------------------------------------------------------------------
//
// Test files run in parallel processes, and a port probed free in one process used to be handed to
// another before the first service bound it. So a port is reserved machine-wide: an exclusive lock
// file per port under os.tmpdir() (created with 'wx', holding the owner's pid), kept until the owner
// exits, and a port is only handed out when nothing listens on it. Ports come from a window that
// the kernel never picks for port-0 binds or outgoing connections, so other listeners cannot take
// a reserved port in the meantime either.

/** Where reservations live: one `<port>.lock` file per reserved port. */
export const portLockDir = join(tmpdir(), 'simrs-ports');

/** A reservation whose owner is alive is still reclaimed after this long (its pid may be reused). */
const RESERVATION_STALE_MS = 60 * 60_000;
/** The window reserved ports come from, as far as it lies outside the kernel's ephemeral range. */
const PORT_WINDOW: readonly [number, number] = [20_000, 32_000];

const reserved = new Set<number>();
let releaseOnExit = false;

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux: assume the IANA dynamic range
  }
  return [49_152, 65_535];
}

/** The ports freePort() picks from: PORT_WINDOW less the ephemeral range (or just above that range). */
export function portWindow(): [number, number] {
  const [low, high] = ephemeralRange();
  const [from, to] = PORT_WINDOW;
  if (high < from || low > to) return [from, to];
  if (low - 1 - from >= 1_000) return [from, Math.min(to, low - 1)];
  if (65_535 - high >= 1_000) return [high + 1, 65_535];
  return [from, to]; // no room outside the ephemeral range: the lock files and the bind check still hold
}

const lockFile = (port: number) => join(portLockDir, `${port}.lock`);

function ownerAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A reservation is stale when its owner is gone, it is older than RESERVATION_STALE_MS, or unreadable. */
function isStale(content: string, modifiedMs: number): boolean {
  const pid = Number(/^pid (\d+)/.exec(content)?.[1]);
  return !pid || !ownerAlive(pid) || Date.now() - modifiedMs > RESERVATION_STALE_MS;
}

function createLock(file: string): boolean {
  try {
    writeFileSync(file, `pid ${process.pid}\nat ${new Date().toISOString()}\n`, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Removes a stale reservation. Reclaimers take `<port>.lock.reclaim` (also 'wx') and read the lock
 * again under it, so two of them cannot both remove it and one remove the other's fresh reservation.
 * A reclaim lock left behind by a crash is left alone: that one port is simply never handed out.
 */
function reclaimIfStale(file: string): void {
  const guard = `${file}.reclaim`;
  if (!createLock(guard)) return;
  try {
    const content = readFileSync(file, 'utf8');
    if (isStale(content, statSync(file).mtimeMs)) unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  } finally {
    unlinkSync(guard);
  }
}

function takeLock(port: number): boolean {
  const file = lockFile(port);
  if (createLock(file)) return true;
  reclaimIfStale(file);
  return createLock(file);
}

function releaseAll(): void {
  for (const port of reserved) {
    try {
      if (readFileSync(lockFile(port), 'utf8').startsWith(`pid ${process.pid}\n`)) unlinkSync(lockFile(port));
    } catch {
      // best effort: a reservation left behind goes stale with its owner
    }
  }
  reserved.clear();
}

/** Resolves true when nothing listens on `port` on `host` (an address family the machine lacks counts as free). */
function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolveBind) => {
    const server = createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) => resolveBind(err.code === 'EAFNOSUPPORT' || err.code === 'EADDRNOTAVAIL'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolveBind(true)));
  });
}

/**
 * Reserves `port` for this process if no other process holds it and nothing listens on it. The
 * reservation lasts until this process exits (or goes stale, see RESERVATION_STALE_MS).
 */
export async function reservePort(port: number): Promise<boolean> {
  if (reserved.has(port)) return false;
  mkdirSync(portLockDir, { recursive: true });
  if (!takeLock(port)) return false;
  // 0.0.0.0 conflicts with a listener on any IPv4 address; [::] also with IPv6 ones.
  if ((await canBind(port, '0.0.0.0')) && (await canBind(port, '::'))) {
    reserved.add(port);
    if (!releaseOnExit) {
      releaseOnExit = true;
      process.once('exit', releaseAll);
    }
    return true;
  }
  unlinkSync(lockFile(port));
  return false;
}

/**
 * A loopback port that no other caller on this machine gets while this process lives, and that
 * nothing listened on when it was handed out: pass it to the service that will bind it.
 */
export async function freePort(): Promise<number> {
  const [from, to] = portWindow();
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const port = from + randomInt(to - from + 1);
    if (await reservePort(port)) return port;
  }
  throw new Error(`no free port in ${from}-${to} after 1000 tries (reservations in ${portLockDir})`);
}

/** A fresh database on the test server; drop() removes it (and kicks its connections). */
export async function throwawayDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${label}_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(testServerUrl, name);
  await ensureDatabase(url);
  return {
    url,
    async drop() {
      const admin = new pg.Client({ connectionString: databaseUrl(testServerUrl, 'postgres') });
      await admin.connect();
      try {
        await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Everything the process printed, one entry per line (JSON log lines as text). */
  lines: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The node settings every service runs with, here and in the images (the Dockerfile's CMD says the same;
 * test/build.test.ts keeps them in step). GC_FLAG lets the idle reclaim (reclaim.ts) give memory back
 * after the start and after each busy spell. The young generation is left at V8's default (it grows to
 * 2 x 64 MB under load): capping it cuts the peak under load but costs CPU on every request. Measured
 * on a quiet machine (issue 18, the README's Benchmarks), records / gateway / identity CPU per request
 * against V8's default: --max-semi-space-size=32 +3 / +10 / +11 %, =16 +31 / +20 / +26 %, =8 +52 / +37 /
 * +42 %, for peaks of about 270 / 250 / 215 MB instead of 345 in records; none reaches 200 MB. An
 * operator who would rather pay CPU than memory can add it to the container's command.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = [GC_FLAG];

/**
 * glibc's allocator settings for every service (the Dockerfile's ENV says the same). Buffers freed after
 * a load stayed in malloc's arenas: at most two arenas, and a fixed trim threshold (which also stops
 * glibc from raising its mmap threshold, so large buffers are returned on free), gave the gateway about
 * 14 MB back after the bench's load (one run each way on a crowded machine; a small effect). They still
 * apply where jemalloc is not installed.
 */
const GLIBC_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' };

/** Debian's libjemalloc2; LD_PRELOAD finds it by name in the library path on any architecture. */
export const JEMALLOC = 'libjemalloc.so.2';

/**
 * jemalloc instead of glibc's malloc (issue 18). Under the bench's load the gateway's ArrayBuffers reached
 * 40 MB (their owners survive two scavenges with the requests in flight and wait in the old generation
 * for a full collection) and grew glibc's main heap to about 60 MB; after the load about 50 MB of it was
 * free but stayed resident, because glibc gives back only the top of its main heap (malloc_info: 60 MB
 * in the heap, 49 MB of it free, 35 s after the load). jemalloc's background thread returns freed
 * pages after its decay time (ten seconds): the gateway then idles at 107-111 MB after the load instead
 * of 147-161 (README, Benchmarks). The decay stays jemalloc's own: one second (dirty_decay_ms:1000)
 * kept the peak nearer glibc's but cost up to a fifth more CPU per request in runs taken in turns
 * (freed pages returned, then faulted in again); with ten the gateway peaks 20-50 MB higher than on
 * glibc, no CPU added.
 */
const JEMALLOC_ENV: Readonly<Record<string, string>> = { LD_PRELOAD: JEMALLOC, MALLOC_CONF: 'background_thread:true' };

/** Every allocator setting the images run with (the Dockerfile installs libjemalloc2). */
export const IMAGE_ENV: Readonly<Record<string, string>> = { ...GLIBC_ENV, ...JEMALLOC_ENV };

/** Whether libjemalloc2 is installed here (a machine without it runs the services on glibc's malloc). */
export function jemallocInstalled(dirs = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib']): boolean {
  return dirs.some((dir) => existsSync(join(dir, JEMALLOC)));
}

/** The allocator settings every service starts with: the images', less jemalloc where it is missing. */
export const SERVICE_ENV: Readonly<Record<string, string>> = jemallocInstalled() ? IMAGE_ENV : GLIBC_ENV;

/**
 * How node starts a service in its workspace folder: the TypeScript sources (tests, npm start), or
 * with `compiled` the JavaScript that `npm run build` writes to dist/, resolving the shared workspaces
 * to their dist/ too (the `simrs-compiled` export condition), as the images run it. Compiled, no .ts
 * file is loaded, so Node's type stripper (about 25 MB of WebAssembly memory) never starts.
 */
export function serviceArgs(compiled = false): string[] {
  return compiled
    ? [...SERVICE_NODE_FLAGS, '--conditions=simrs-compiled', '--import', './dist/instrumentation.js', 'dist/main.js']
    : [...SERVICE_NODE_FLAGS, '--import', './src/instrumentation.ts', 'src/main.ts'];
}

/**
 * Starts a service (serviceArgs) in a workspace folder (e.g. "services/notifier") with the given
 * environment, collecting its output.
 */
export function startService(
  name: string,
  workspace: string,
  env: Record<string, string>,
  options: { compiled?: boolean } = {},
): ServiceProcess {
  const cwd = resolve(repoRoot, workspace);
  const child = spawn(process.execPath, serviceArgs(options.compiled), {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...SERVICE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(line);
    if (process.env.SIMRS_TEST_ECHO) process.stderr.write(`[${name}] ${chunk.toString('utf8')}`);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((res) => child.once('exit', (code, signal) => res(code ?? (signal ? 128 : null))));
  return {
    name,
    child,
    lines,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Polls `check` until it resolves truthy, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

/** Resolves once GET url answers 200. */
export function waitForReady(url: string, timeoutMs = 30_000): Promise<true> {
  return waitFor(`${url} to be ready`, async () => (await fetch(url)).status === 200 || undefined, timeoutMs);
}
