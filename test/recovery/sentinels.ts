// Redis with automatic failover on loopback: a master, one replica and three Sentinels (quorum 2, a
// master unreachable for one second is down), each a real redis-server process in a temp directory.
// Sentinels rewrite their configuration files as they learn, so each gets a file of its own.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, waitFor } from '@simrs/platform/testing';

export const MASTER_NAME = 'simrs';

export interface SentinelSet {
  /** For REDIS_URL: the first master's address (only the scheme matters once Sentinels are set). */
  url: string;
  /** For REDIS_SENTINELS. */
  sentinels: string[];
  /** SIGKILL of the current master. */
  killMaster(): Promise<void>;
  /** The address the Sentinels give for the master now. */
  masterAddress(): Promise<string>;
  stop(): Promise<void>;
}

async function ask<T>(port: number, call: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await call(redis);
  } finally {
    redis.disconnect();
  }
}

const fieldsOf = (reply: string[]): Record<string, string> =>
  Object.fromEntries(Array.from({ length: reply.length / 2 }, (_, i) => [reply[2 * i]!, reply[2 * i + 1]!]));

export async function startSentinels(): Promise<SentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), 'simrs-sentinels-'));
  const processes = new Map<number, ChildProcess>();
  const start = (port: number, args: string[]) => {
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    processes.set(port, child);
  };
  const [master, replica, ...sentinelPorts] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  // In the temp directory: a master writes an RDB file there to sync its replica.
  const common = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  start(master!, ['--port', String(master), ...common]);
  start(replica!, ['--port', String(replica), ...common, '--replicaof', '127.0.0.1', String(master)]);
  await waitFor('the replica in sync', async () =>
    ask(replica!, async (r) => /master_link_status:up/.test(await r.info('replication'))).catch(() => false),
  );
  for (const port of sentinelPorts) {
    const file = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 3000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    start(port, [file, '--sentinel']);
  }
  // Every Sentinel knows the replica and the two other Sentinels: a failover can be agreed on.
  await waitFor(
    'the Sentinels to know each other and the replica',
    async () => {
      const views = await Promise.all(
        sentinelPorts.map((port) =>
          ask(port, async (r) => fieldsOf((await r.call('SENTINEL', 'MASTER', MASTER_NAME)) as string[])).catch(() => undefined),
        ),
      );
      return views.every((v) => v && v['num-other-sentinels'] === '2' && v['num-slaves'] === '1');
    },
    30_000,
    200,
  );

  const masterAddress = () =>
    ask(sentinelPorts[0]!, async (r) => ((await r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as string[]).join(':'));

  return {
    url: `redis://127.0.0.1:${master}`,
    sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`),
    masterAddress,
    async killMaster() {
      const port = Number((await masterAddress()).split(':')[1]);
      const child = processes.get(port)!;
      child.kill('SIGKILL');
      await waitFor('the master to be gone', async () => child.exitCode !== null || child.signalCode !== null, 5_000, 20);
    },
    async stop() {
      for (const child of processes.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
