// The whole stack for the fault suite, on parts this process owns so that it may kill them: a private
// embedded Postgres in a temp dir (never the machine's shared server), a private redis-server, an SMTP
// peer, and the four services as processes (scripts/lib/stack.ts). Each part can be SIGKILLed and
// started again exactly as it ran: a service with the environment it was started with (read back from
// /proc), Redis on its port, Postgres on its data directory.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startService, waitFor, waitForReady } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startEmbeddedPostgres } from '../../scripts/lib/postgres.ts';
import { startRedisServer } from '../../scripts/lib/redis.ts';
import type { RedisServer } from '../../scripts/lib/redis.ts';
import { startStack } from '../../scripts/lib/stack.ts';
import type { ServiceName, Stack, StackOptions } from '../../scripts/lib/stack.ts';

export type Part = Exclude<ServiceName, 'gateway'> | 'redis' | 'postgres';

const WORKSPACES: Record<ServiceName, string> = {
  notifier: 'services/notifier',
  identity: 'services/identity',
  records: 'services/records',
  gateway: 'gateway',
};

export interface FaultStack {
  stack: Stack;
  smtp: SmtpPeer;
  redis: RedisServer;
  /** SIGKILL, nothing graceful. */
  kill(part: Part): Promise<void>;
  /** Starts the part again as it ran, and resolves once it (and the services over it) are ready. */
  restart(part: Part): Promise<void>;
  stop(): Promise<void>;
}

/** The environment a running process was started with. */
function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function startFaultStack(env: StackOptions['env'] = {}): Promise<FaultStack> {
  const pgDir = mkdtempSync(join(tmpdir(), 'simrs-faults-pg-'));
  const pgCleanups: Array<() => Promise<unknown>> = [];
  const pgPort = await freePort();
  const postgresUrl = await startEmbeddedPostgres(pgDir, pgCleanups, pgPort);
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  let stack: Stack;
  try {
    stack = await startStack({ postgresUrl, redisUrl: redis.url, smtpUrl: smtp.url, dbPrefix: 'faults_', env });
  } catch (err) {
    await Promise.all([redis.stop(), smtp.stop()]);
    for (const cleanup of pgCleanups.splice(0)) await cleanup().catch(() => {});
    rmSync(pgDir, { recursive: true, force: true });
    throw err;
  }
  const envs = {} as Record<ServiceName, Record<string, string>>;
  for (const name of Object.keys(WORKSPACES) as ServiceName[]) envs[name] = environOf(stack.services[name].child.pid!);
  const readyUrls: Record<ServiceName, string> = {
    notifier: `${stack.urls.notifierHttp}/readyz`,
    identity: `${stack.urls.identityHttp}/readyz`,
    records: `${stack.urls.records}/readyz`,
    gateway: `${stack.urls.gatewayOps}/readyz`,
  };
  const allReady = async () => {
    try {
      await Promise.all(Object.values(readyUrls).map((url) => waitForReady(url, 60_000)));
    } catch (err) {
      const dead = (Object.keys(WORKSPACES) as ServiceName[]).filter(
        (n) => stack.services[n].child.exitCode !== null || stack.services[n].child.signalCode !== null,
      );
      const detail = dead.map(
        (n) =>
          `--- ${n} exited (${stack.services[n].child.exitCode ?? stack.services[n].child.signalCode})\n${stack.services[n].lines.slice(-15).join('\n')}`,
      );
      throw new Error(`not ready again: ${(err as Error).message}\n${detail.join('\n')}`, { cause: err });
    }
  };

  async function killPostgres(): Promise<void> {
    const pid = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const backends = childrenOf(pid);
    process.kill(pid, 'SIGKILL');
    for (const child of backends) if (alive(child)) process.kill(child, 'SIGKILL');
    await waitFor('postgres to be gone', async () => ![pid, ...backends].some(alive), 10_000, 50);
    pgCleanups.splice(0); // nothing left to stop gracefully
  }

  return {
    stack,
    smtp,
    redis,
    async kill(part) {
      if (part === 'postgres') return killPostgres();
      if (part === 'redis') {
        // startRedisServer's stop is a SIGTERM; the fault is a SIGKILL of the same process.
        const pid = Number(
          execFileSync('pgrep', ['-f', `redis-server 127.0.0.1:${redis.port}`], { encoding: 'utf8' })
            .trim()
            .split('\n')[0],
        );
        process.kill(pid, 'SIGKILL');
        await redis.stop(); // resolves at once: the child has exited
        return;
      }
      await stack.services[part].stop('SIGKILL');
    },
    async restart(part) {
      if (part === 'postgres') await startEmbeddedPostgres(pgDir, pgCleanups, pgPort);
      else if (part === 'redis') await redis.start();
      else stack.services[part] = startService(part, WORKSPACES[part], envs[part]);
      await allReady();
    },
    async stop() {
      await stack.stop();
      await Promise.all([redis.stop(), smtp.stop()]);
      for (const cleanup of pgCleanups.splice(0)) await cleanup().catch(() => {});
      rmSync(pgDir, { recursive: true, force: true });
    },
  };
}
