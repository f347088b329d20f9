// Loopback ports for tests, reserved machine-wide (./index.ts re-exports them). Test files run in
// parallel processes, and a port probed free in one process used to be handed to another before the
// first service bound it. So a port is reserved machine-wide: an exclusive lock file per port under
// os.tmpdir() (created with 'wx', holding the owner's pid), kept until the owner exits, and a port is
// only handed out when nothing listens on it. Ports come from a window that the kernel never picks for
// port-0 binds or outgoing connections, so other listeners cannot take a reserved port meanwhile either.
import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';

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
