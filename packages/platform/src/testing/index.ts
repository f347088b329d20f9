// Helpers for tests: loopback ports reserved machine-wide, real child processes for services (started
// as runtime.ts says every service starts), throwaway databases. Nothing here is imported by production code.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseUrl, ensureDatabase } from '../db.ts';
import { SERVICE_ENV, serviceArgs } from '../runtime.ts';

export { freePort, portLockDir, portWindow, reservePort } from './ports.ts';
export { startRelay } from './relay.ts';
export type { Relay } from './relay.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The Postgres server tests use: DATABASE_URL when set, else the machine's local server. */
export const testServerUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const testRedisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

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
