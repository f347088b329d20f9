// Helpers for tests: loopback ports reserved machine-wide, real child processes for services (started
// as runtime.ts says every service starts), throwaway databases. Nothing here is imported by production code.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseUrl, ensureDatabase } from './db.ts';
import { SERVICE_ENV, serviceArgs } from './runtime.ts';

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
 * Starts a service in a workspace folder (e.g. "services/notifier") with the given environment, as
 * every service starts (runtime.ts: serviceArgs, SERVICE_ENV), collecting its output.
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
