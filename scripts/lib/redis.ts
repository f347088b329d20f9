// A private redis-server child process (local stack and tests), or a clear message when none exists.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort, waitFor } from '@simrs/platform/testing';

export interface RedisServer {
  url: string;
  port: number;
  /** The running redis-server's pid. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop), keeping what it persisted. */
  start(): Promise<void>;
}

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export const REDIS_INSTALL_HINT =
  'redis-server was not found on PATH. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a running Redis.';

export async function startRedisServer(options: { port?: number; dir?: string } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const persist = options.dir ? ['--dir', options.dir, '--save', '60 1', '--appendonly', 'no'] : ['--save', '', '--appendonly', 'no'];
  if (options.dir) mkdirSync(options.dir, { recursive: true });
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', ...persist], { stdio: 'ignore' });
    await waitFor(`redis-server on ${port}`, async () => {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => {});
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } finally {
        probe.disconnect();
      }
    });
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url,
    port,
    stop,
    start,
    get pid() {
      return child?.pid;
    },
  };
}
