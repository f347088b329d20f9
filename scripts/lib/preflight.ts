// What `npm start` checks before it starts anything, each within a few seconds, so that a failure is
// one line naming its cause: the ports it will listen on are free (not bound on the same interface,
// and nobody answering on 127.0.0.1 or ::1, where `localhost` may lead a browser), Postgres and Redis
// answer, and no other `npm start` runs on the same data directory.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';

export interface PortClaim {
  port: number;
  /** What will listen there ("the gateway"). */
  what: string;
  /** The variable that moves it ("GATEWAY_PORT"). */
  variable: string;
}

const CHECK_MS = 3_000;

function bindError(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Does something accept connections on host:port? (false when refused, unreachable or slow) */
function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (yes: boolean) => {
      socket.destroy();
      resolve(yes);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** "pid 123 (python3)" for the process listening on a TCP port, when `ss` can tell. */
function listenerOf(port: number): string | undefined {
  const res = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8', timeout: 1_000 });
  const m = /users:\(\("([^"]+)",pid=(\d+)/.exec(res.stdout ?? '');
  return m ? `pid ${m[2]} (${m[1]})` : undefined;
}

/** One problem per port that is taken or claimed twice. */
export async function portProblems(claims: PortClaim[], host: string): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Map<number, PortClaim>();
  for (const claim of claims) {
    const other = seen.get(claim.port);
    if (other) problems.push(`${claim.variable} and ${other.variable} are both ${claim.port}`);
    seen.set(claim.port, claim);
  }
  const results = await Promise.all(
    [...seen.values()].map(async (claim) => {
      const err = await bindError(claim.port, host);
      if (err && err.code !== 'EADDRINUSE' && err.code !== 'EACCES')
        return `${claim.variable}=${claim.port} (${claim.what}) cannot be bound on ${host}: ${err.code ?? err.message}`;
      const taken = Boolean(err) || (await answers('127.0.0.1', claim.port)) || (await answers('::1', claim.port));
      if (!taken) return undefined;
      if (err?.code === 'EACCES') return `port ${claim.port} (${claim.what}) needs privileges; set ${claim.variable} to another port`;
      const owner = listenerOf(claim.port);
      return `port ${claim.port} (${claim.what}) is in use by another program${owner ? `, ${owner}` : ''}; stop it or set ${claim.variable} to another port`;
    }),
  );
  return [...problems, ...results.filter((r): r is string => Boolean(r))];
}

/** host:port of a URL, never its credentials. */
export function whereIs(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol.startsWith('postgres') ? 5432 : 6379)}`;
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
  const codes = e.errors?.map((x) => x.code ?? x.message).filter(Boolean);
  return codes?.length ? [...new Set(codes)].join(', ') : (e.code ?? e.message ?? String(err));
}

const within = <T>(ms: number, work: Promise<T>, what: string): Promise<T> =>
  Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s (${what})`)), ms).unref()),
  ]);

/** Why the Postgres server at DATABASE_URL cannot be used, or undefined when it answers. */
export async function postgresProblem(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CHECK_MS });
  client.on('error', () => {});
  try {
    await within(
      CHECK_MS + 500,
      client.connect().then(() => client.query('select 1')),
      'connect',
    );
    return undefined;
  } catch (err) {
    return `Postgres at ${whereIs(url)} (DATABASE_URL) cannot be reached: ${reason(err)}`;
  } finally {
    void client.end().catch(() => {});
  }
}

/** Why the Redis at REDIS_URL cannot be used, or undefined when it answers PING. */
export async function redisProblem(url: string): Promise<string | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CHECK_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // The connection's own error (ECONNREFUSED, ...) says more than the rejection ("Connection is closed").
  let cause: unknown;
  redis.on('error', (err) => (cause ??= err));
  try {
    await within(
      CHECK_MS + 500,
      redis.connect().then(() => redis.ping()),
      'PING',
    );
    return undefined;
  } catch (err) {
    return `Redis at ${whereIs(url)} (REDIS_URL) cannot be reached: ${reason(cause ?? err)}`;
  } finally {
    redis.disconnect();
  }
}

export interface LockInfo {
  pid: number;
  publicUrl: string;
  startedAt: string;
}

function runningStart(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // A recycled pid belongs to some other program: only a running scripts/start.ts holds the lock.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start.ts');
  } catch {
    return true; // no /proc: trust the pid
  }
}

/**
 * Takes `file` for this process (exclusive create). Returns the holder when another live `npm start`
 * has it; a lock left by a process that is gone is taken over.
 */
export function takeLock(file: string, info: LockInfo): { release(): void } | { heldBy: LockInfo } {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      return {
        release: () => {
          try {
            if ((JSON.parse(readFileSync(file, 'utf8')) as LockInfo).pid === info.pid) unlinkSync(file);
          } catch {
            // already gone
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: LockInfo | undefined;
      try {
        holder = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
      } catch {
        holder = undefined; // being written, or garbage: look again shortly
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      }
      if (holder && runningStart(holder.pid)) return { heldBy: holder };
      if (holder || attempt > 0) {
        try {
          unlinkSync(file);
        } catch {
          // someone else took it over first
        }
      }
    }
  }
  throw new Error(`cannot take ${file}`);
}
