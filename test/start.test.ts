// `npm start` as an operator meets it: each way it can fail says so in one line on stderr and exits
// within 5 s (a port in use, also one held only on ::1; Postgres or Redis unreachable; a service that
// exits while starting; a second npm start on the same data). A whole run streams every service's
// lines, passes settings through, and stops every process it started when `npm start` alone gets
// SIGTERM; so does a signal to its whole process group (Ctrl-C) and the death of npm start by SIGKILL,
// after which the next npm start comes up. Plus the pieces: which settings reach which service, the log
// printer, the lock.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { serviceArgs } from '@simrs/platform/runtime';
import { freePort, repoRoot } from '@simrs/platform/testing';
import { logPrinter } from '../scripts/lib/logs.ts';
import { takeLock } from '../scripts/lib/preflight.ts';
import { configKeys, LOCAL_PORTS, SERVICE_DIRS, SERVICE_NAMES, settingsFromEnv, STACK_PORTS } from '../scripts/lib/settings.ts';
import type { StackPort } from '../scripts/lib/settings.ts';
import { stackEnv } from '../scripts/lib/stack.ts';
import {
  alive,
  cleanUp,
  cmdline,
  descendants,
  killGroup,
  killLeft,
  launch,
  leftOf,
  startEnv,
  tempDir,
  untilRunning,
} from './support/start-run.ts';
import type { Launched, Tree } from './support/start-run.ts';

const LIMIT_MS = 5_000;
/**
 * A service that refuses its settings is found only when it starts, after the databases are migrated
 * and seeded, so that failure takes longer than those found before any work (a port, Postgres, Redis).
 */
const SERVICE_EXIT_LIMIT_MS = 15_000;

after(cleanUp);

/** Runs npm start until it exits (killing it after 20 s), asserting one line on stderr and exit 1 within `limitMs`. */
async function failsWith(env: Record<string, string>, pattern: RegExp, limitMs = LIMIT_MS): Promise<string> {
  const run = launch(env);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
  const { code, ms } = await run.exited;
  clearTimeout(timer);
  const lines = run.stderr().trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr()}`);
  assert.match(lines[0]!, /^npm start: /);
  assert.match(lines[0]!, pattern);
  assert.equal(code, 1);
  assert.ok(ms < limitMs, `exited after ${Math.round(ms)} ms`);
  return lines[0]!;
}

const listen = (port: number, host: string) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });

describe('npm start fails fast, in one line', () => {
  test('the gateway port is taken by another program', async () => {
    const env = await startEnv();
    const holder = await listen(Number(env.GATEWAY_PORT), '127.0.0.1');
    try {
      await failsWith(env, new RegExp(`port ${env.GATEWAY_PORT} \\(the gateway\\) is in use by another program.*GATEWAY_PORT`));
    } finally {
      holder.close();
    }
  });

  test('a port held only on ::1 (where `localhost` may lead a browser) counts as taken too', async (t) => {
    const env = await startEnv();
    let holder: Server;
    try {
      holder = await listen(Number(env.IDENTITY_HTTP_PORT), '::1');
    } catch {
      return t.skip('no IPv6 loopback here');
    }
    try {
      await failsWith(env, new RegExp(`port ${env.IDENTITY_HTTP_PORT} \\(identity\\) is in use.*IDENTITY_HTTP_PORT`));
    } finally {
      holder.close();
    }
  });

  test('Postgres cannot be reached', async () => {
    const closed = await freePort();
    await failsWith(
      await startEnv({ DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/postgres` }),
      new RegExp(`Postgres at 127.0.0.1:${closed} \\(DATABASE_URL\\) cannot be reached`),
    );
  });

  test('Redis cannot be reached', async () => {
    const closed = await freePort();
    await failsWith(
      await startEnv({ REDIS_URL: `redis://127.0.0.1:${closed}` }),
      new RegExp(`Redis at 127.0.0.1:${closed} \\(REDIS_URL\\) cannot be reached: ECONNREFUSED`),
    );
  });

  test('a service exits during start (here the notifier, refusing a setting that passed through)', async () => {
    const line = await failsWith(
      await startEnv({ MAIL_CONCURRENCY: '0' }),
      /notifier exited during start \(code 1\): configuration error: MAIL_CONCURRENCY/,
      SERVICE_EXIT_LIMIT_MS,
    );
    assert.doesNotMatch(line, /\n/);
  });
});

describe('a whole npm start', () => {
  test('streams every service’s lines, passes settings through, refuses a second start, and stops everything on SIGTERM to npm start', async () => {
    const email = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    const env = await startEnv({ OTP_SENDS_PER_ADDRESS_PER_HOUR: '1', MAX_BODY_BYTES: '2048', LOG_LEVEL: 'info' });
    const run = launch(env, 'npm');
    const killer = setTimeout(() => run.child.kill('SIGKILL'), 150_000);
    try {
      const ready = await untilRunning(run);
      assert.ok(ready, `npm start exited: ${run.stderr()}\n${run.stdout.slice(-20).join('\n')}`);

      // Every line is JSON with the service's name (not a terminal), and each service spoke before the banner.
      const banner = run.stdout.findIndex((l) => l.includes('"msg":"SIMRS is running"'));
      const before = run.stdout.slice(0, banner).filter((l) => l.startsWith('{'));
      for (const line of before) assert.equal(typeof (JSON.parse(line) as { service?: unknown }).service, 'string', line);
      const speakers = new Set(before.map((l) => (JSON.parse(l) as { service: string }).service));
      for (const name of SERVICE_NAMES) assert.ok(speakers.has(name), `${name} lines streamed: ${[...speakers].join(', ')}`);

      // Settings passed through: the gateway's body limit, identity's sends per address.
      const gateway = `http://127.0.0.1:${env.GATEWAY_PORT}`;
      const origin = `http://localhost:${env.GATEWAY_PORT}`;
      const send = (body: string) =>
        fetch(`${gateway}/api/auth/email-otp/send-verification-otp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin },
          body,
        });
      assert.equal(
        (await send(JSON.stringify({ email, type: 'sign-in', pad: 'x'.repeat(4096) }))).status,
        413,
        'MAX_BODY_BYTES reached the gateway',
      );
      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await send(JSON.stringify({ email, type: 'sign-in' }))).status);
      assert.deepEqual(statuses, [200, 429], 'OTP_SENDS_PER_ADDRESS_PER_HOUR=1 reached identity');

      // A second npm start on the same data says so, in one line.
      const second = launch({ ...env });
      const { code, ms } = await second.exited;
      assert.equal(code, 1);
      assert.ok(ms < LIMIT_MS, `second start took ${Math.round(ms)} ms`);
      assert.match(second.stderr().trim(), /^npm start: already running \(pid \d+, http:\/\/localhost:\d+/);
      assert.equal(second.stderr().trim().split('\n').length, 1);

      // SIGTERM to the npm process alone: everything below it stops.
      const tree = descendants(run.child.pid!);
      assert.ok(
        tree.filter((p) => /src\/main\.ts/.test(p.cmd)).length >= 4,
        `the four services run below npm start:\n${tree.map((p) => p.cmd).join('\n')}`,
      );
      run.child.kill('SIGTERM');
      const stopped = await run.exited;
      assert.equal(stopped.code, 0, run.stderr());
      await new Promise((r) => setTimeout(r, 300));
      const left = tree.filter((p) => alive(p.pid) && cmdline(p.pid) === p.cmd);
      assert.deepEqual(left, [], 'no process of npm start is left');
      assert.ok(
        run.stdout.some((l) => l.includes('"msg":"shutting down"') && l.includes('"service":"gateway"')),
        'the gateway drained',
      );
    } finally {
      clearTimeout(killer);
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  });
});

/** Resolves true when nothing accepts connections on 127.0.0.1:`port`. */
const refuses = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

describe('npm start stops everything however it ends', () => {
  // One environment for all: each start after the first also shows that the one before left its
  // ports and lock free (a second `npm start` comes up). Without REDIS_URL npm start runs a
  // redis-server of its own, which must go too (the embedded Postgres is stopped the same way).
  let env: Record<string, string>;
  before(async () => {
    const { REDIS_URL: _, ...rest } = await startEnv();
    env = { ...rest, LOCAL_REDIS_PORT: String(await freePort()) };
  });
  const startScript = (tree: Tree) => tree.find((p) => /scripts\/start\.ts/.test(p.cmd))!.pid;
  const stops: Array<[string, (run: Launched, tree: Tree) => void]> = [
    ['SIGINT to its process group (Ctrl-C on a terminal)', (run) => process.kill(-run.child.pid!, 'SIGINT')],
    ['SIGTERM to its process group (timeout, a supervisor, kill -- -PGID)', (run) => process.kill(-run.child.pid!, 'SIGTERM')],
    [
      'SIGKILL of the node process running scripts/start.ts (no cleanup of its own runs)',
      (_, tree) => process.kill(startScript(tree), 'SIGKILL'),
    ],
    ['SIGKILL of the npm process (scripts/start.ts, its child, outlives it)', (run) => run.child.kill('SIGKILL')],
  ];
  for (const [how, stop] of stops)
    test(`${how}: nothing it started runs 5 s later`, async () => {
      const run = launch(env, 'npm', { detached: true });
      const killer = setTimeout(() => killGroup(run), 150_000);
      let tree: Tree = [];
      try {
        assert.ok(await untilRunning(run), `npm start exited: ${run.stderr()}\n${run.stdout.slice(-20).join('\n')}`);
        tree = descendants(run.child.pid!);
        assert.equal(tree.filter((p) => /src\/main\.ts/.test(p.cmd)).length, 4, tree.map((p) => p.cmd).join('\n'));
        for (const program of [/scripts\/mailcatcher\.ts/, /^redis-server /])
          assert.ok(
            tree.some((p) => program.test(p.cmd)),
            `${program.source} runs below npm start`,
          );
        const since = performance.now();
        stop(run, tree);
        while (leftOf(tree).length && performance.now() - since < LIMIT_MS) await new Promise((r) => setTimeout(r, 100));
        assert.deepEqual(
          leftOf(tree).map((p) => p.cmd),
          [],
          `still running ${Math.round(performance.now() - since)} ms later`,
        );
        const ports = [...Object.values(STACK_PORTS), LOCAL_PORTS.mailSmtp, LOCAL_PORTS.mailHttp, LOCAL_PORTS.redis].map((p) =>
          Number(env[p.variable]),
        );
        assert.deepEqual(
          (await Promise.all(ports.map(refuses))).map((free, i) => (free ? 0 : ports[i])).filter(Boolean),
          [],
          'ports still open',
        );
      } finally {
        clearTimeout(killer);
        killGroup(run);
        killLeft(tree);
      }
    });
});

describe('the pieces', () => {
  const wiring = {
    ports: Object.fromEntries(Object.entries(STACK_PORTS).map(([k, p]) => [k, p.fallback])) as Record<StackPort, number>,
    databases: { identity: 'postgres://h/identity', records: 'postgres://h/records', notifier: 'postgres://h/notifier' },
    secrets: { auth: 'a'.repeat(40), principal: 'p'.repeat(40) },
    publicUrl: 'http://localhost:8080',
  };
  /** What only the stack decides: where each service listens, its upstreams, its database. */
  const WIRED = new Set([
    'HTTP_PORT',
    'GRPC_PORT',
    'GATEWAY_PORT',
    'OPS_PORT',
    'DATABASE_URL',
    'MIGRATION_DATABASE_URL',
    'REDIS_URL',
    'SMTP_URL',
    'PUBLIC_URL',
    'NOTIFIER_GRPC',
    'IDENTITY_URL',
    'IDENTITY_GRPC',
    'RECORDS_URL',
  ]);

  test('every variable of every service’s settings schema reaches that service, except what the stack wires', () => {
    for (const service of SERVICE_NAMES) {
      const keys = configKeys(service);
      assert.ok(keys.length >= 5, `${service}: read its schema`);
      const settings = Object.fromEntries([...keys, 'OTEL_SERVICE_NAME', 'NODE_ENV'].map((k) => [k, `set-${k}`]));
      const env = stackEnv(
        { postgresUrl: 'postgres://h/', redisUrl: 'redis://r', smtpUrl: 'smtp://m', settings: { [service]: settings } },
        wiring,
      )[service];
      for (const key of [...keys, 'OTEL_SERVICE_NAME', 'NODE_ENV']) {
        if (WIRED.has(key)) assert.notEqual(env[key], `set-${key}`, `${service}.${key} is the stack's`);
        else assert.equal(env[key], `set-${key}`, `${service}.${key} passes through`);
      }
    }
  });

  test("each service's own `npm start -w` runs node as runtime.ts says (npm start and the tests start it so)", () => {
    for (const service of SERVICE_NAMES) {
      const manifest = JSON.parse(readFileSync(join(repoRoot, SERVICE_DIRS[service], 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      };
      assert.equal(manifest.scripts.start, ['node', ...serviceArgs()].join(' '), `${service}'s start script`);
    }
  });

  test('HOST set by the operator moves where services listen and where their peers are called', () => {
    const settings = settingsFromEnv({ HOST: '127.0.0.2' });
    const env = stackEnv({ postgresUrl: 'postgres://h/', redisUrl: 'redis://r', smtpUrl: 'smtp://m', settings }, wiring);
    assert.equal(env.gateway.HOST, '127.0.0.2');
    assert.equal(env.gateway.IDENTITY_URL, 'http://127.0.0.2:4001');
    assert.equal(env.identity.NOTIFIER_GRPC, '127.0.0.2:50052');
  });

  test('the log printer: JSON lines keep their fields and gain the service; a terminal gets one readable line', () => {
    const capture = () => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (c: Buffer) => (text += c.toString()));
      return { out, text: () => text };
    };
    const json = capture();
    const toJson = logPrinter(json.out, false);
    toJson('gateway', '{"level":"info","service":"gateway","msg":"listening"}', 'stdout');
    toJson('identity', 'configuration error: X', 'stderr');
    toJson('mail', '{"level":"info","msg":"up"}', 'stdout');
    const lines = json
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines[0], { level: 'info', service: 'gateway', msg: 'listening' });
    assert.equal(lines[1]!.service, 'identity');
    assert.equal(lines[1]!.level, 'error');
    assert.equal(lines[1]!.msg, 'configuration error: X');
    assert.deepEqual(lines[2], { service: 'mail', level: 'info', msg: 'up' });

    const tty = capture();
    logPrinter(tty.out, true, ['gateway'])(
      'gateway',
      '{"level":"warn","time":"2026-01-01T10:00:00.000Z","service":"gateway","msg":"slow","route":"/trpc/x","err":{"message":"boom","stack":"a\\nb"}}',
      'stdout',
    );
    const plain = tty.text().replace(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g'), '');
    assert.equal(plain.split('\n').length, 2, 'one line');
    assert.match(plain, /gateway\s+warn\s+slow route=\/trpc\/x err="boom"/);
  });

  test('the lock: held while its npm start lives; taken over from a pid that is gone or is another program', async () => {
    const dir = tempDir('lock');
    const file = join(dir, 'start.lock');
    const me = { pid: process.pid, publicUrl: 'http://localhost:1', startedAt: 'now' };
    // A process whose command line names scripts/start.ts stands in for a running npm start.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)', 'scripts/start.ts'], { stdio: 'ignore' });
    await once(holder, 'spawn');
    writeFileSync(file, JSON.stringify({ pid: holder.pid, publicUrl: 'http://localhost:2', startedAt: 'then' }));
    const refused = takeLock(file, me);
    assert.ok('heldBy' in refused && refused.heldBy.pid === holder.pid, 'a live npm start holds it');
    holder.kill();
    await once(holder, 'exit');
    const taken = takeLock(file, me);
    assert.ok('release' in taken, 'its process is gone: taken over');
    taken.release();
    assert.ok(!existsSync(file), 'released');
    writeFileSync(file, JSON.stringify({ pid: process.pid, publicUrl: 'x', startedAt: 'x' }));
    assert.ok('release' in takeLock(file, { ...me, pid: process.pid + 1 }), 'a pid now used by another program does not hold it');
  });
});
