// Running `npm start` (or `node scripts/start.ts`, what it execs) as an operator does, for the start
// tests: its environment on free ports and throwaway databases, its output, and the processes below it
// read from /proc (so a test can tell what it left behind).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, dropDatabase } from '@simrs/platform/db';
import { freePort, repoRoot, testRedisUrl, testServerUrl } from '@simrs/platform/testing';
import { LOCAL_PORTS, STACK_PORTS } from '../../scripts/lib/settings.ts';

const dataDirs: string[] = [];
const prefixes: string[] = [];

/** A temporary directory that cleanUp() removes. */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `simrs-${label}-`));
  dataDirs.push(dir);
  return dir;
}

/** Removes the data directories and databases that startEnv() handed out. */
export async function cleanUp(): Promise<void> {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  await Promise.allSettled(
    prefixes.flatMap((p) => ['identity', 'records', 'notifier'].map((db) => dropDatabase(databaseUrl(testServerUrl, `${p}${db}`)))),
  );
}

/** An environment for npm start: free ports, its own data directory and database names, the test servers. */
export async function startEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const dir = tempDir('start');
  const prefix = `t_start_${randomBytes(3).toString('hex')}_`;
  prefixes.push(prefix);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: testServerUrl,
    REDIS_URL: testRedisUrl,
    SIMRS_DATA_DIR: dir,
    DATABASE_PREFIX: prefix,
  };
  for (const p of [...Object.values(STACK_PORTS), LOCAL_PORTS.mailSmtp, LOCAL_PORTS.mailHttp]) env[p.variable] = String(await freePort());
  return { ...env, ...extra };
}

export interface Launched {
  child: ChildProcess;
  /** In a process group of its own (its pid is the group's id). */
  detached: boolean;
  stdout: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; ms: number }>;
}

/**
 * `node scripts/start.ts` (what `npm start` execs), or `npm start` itself. `detached` puts it in a
 * process group of its own, as a terminal does, so that the test can signal the whole group.
 */
export function launch(env: Record<string, string>, via: 'node' | 'npm' = 'node', options: { detached?: boolean } = {}): Launched {
  const npmCli = process.env.npm_execpath;
  const [cmd, args] =
    via === 'node'
      ? [process.execPath, ['scripts/start.ts']]
      : npmCli && /npm-cli\.js$/.test(npmCli)
        ? [process.execPath, [npmCli, 'start']]
        : ['npm', ['start']];
  const started = performance.now();
  const child = spawn(cmd, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached });
  const stdout: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    stdout.push(...lines);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, ms: performance.now() - started })),
  );
  return { child, detached: Boolean(options.detached), stdout, stderr: () => stderr, exited };
}

/** Resolves true once npm start prints its banner (JSON, not a terminal), false if it exits first. */
export function untilRunning(run: Launched): Promise<boolean> {
  return Promise.race([
    (async () => {
      while (!run.stdout.some((l) => l.includes('"msg":"SIMRS is running"'))) await new Promise((r) => setTimeout(r, 100));
      return true;
    })(),
    run.exited.then(() => false),
  ]);
}

export type Tree = Array<{ pid: number; cmd: string }>;

/** Every process below `pid` (from /proc): pid, command line. */
export function descendants(pid: number): Tree {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = new Set<number>([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parentOf)
      if (found.has(parent) && !found.has(child)) {
        found.add(child);
        grew = true;
      }
  }
  found.delete(pid);
  return [...found].map((p) => ({ pid: p, cmd: cmdline(p) }));
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** Alive and not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The processes of `tree` still running (the same pid with the same command line). */
export const leftOf = (tree: Tree) => tree.filter((p) => alive(p.pid) && cmdline(p.pid) === p.cmd);

/** SIGKILL to whatever of `tree` still runs: a failed test must not leave services behind. */
export function killLeft(tree: Tree): void {
  for (const p of leftOf(tree)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** SIGKILL to the process group of a run launched `detached` (never to the test's own group). */
export function killGroup(run: Launched): void {
  if (!run.detached || !run.child.pid) return;
  try {
    process.kill(-run.child.pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}
