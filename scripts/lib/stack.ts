// Starts the four services as separate processes against a Postgres server and a Redis, the same way
// for `npm start` and for the cross-service tests. Each service gets its own database on the server.
// Tests keep every line a service prints (they search the logs); `npm start` streams them instead
// (`output`) and keeps only the last few. A service that exits before the stack is ready fails the
// start at once, naming it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { databaseUrl, dropDatabase, ensureDatabase } from '@simrs/platform/db';
import { podHeapOption, SERVICE_ENV, serviceArgs } from '@simrs/platform/runtime';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { eachLine, LastLines, messageOf } from './logs.ts';
import { repoRoot } from './paths.ts';
import type { LineSink } from './logs.ts';
import { SERVICE_DIRS, SERVICE_NAMES } from './settings.ts';
import type { ServiceName, StackPort } from './settings.ts';

export type { ServiceName };

export interface StackOptions {
  /** A Postgres server URL; the services get databases `${dbPrefix}identity` etc. on it. */
  postgresUrl: string;
  redisUrl: string;
  smtpUrl: string;
  dbPrefix?: string;
  /** Fixed ports for the local stack; tests leave them out and get free ones. */
  ports?: Partial<Record<StackPort, number>>;
  secrets?: { auth: string; principal: string };
  corsAllowedOrigins?: string[];
  publicUrl?: string;
  /** Drop the databases on stop; defaults to true when `dbPrefix` is set (tests), the local stack keeps them. */
  dropDatabasesOnStop?: boolean;
  /** Extra environment per service (short TTLs in tests, OTEL_* for a trace receiver, ...). */
  env?: Partial<Record<ServiceName | 'all', Record<string, string>>>;
  /**
   * An operator's settings per service (npm start: its environment, see settings.ts). They override
   * the stack's defaults (HOST, MAIL_FROM, ...) but not what only the stack knows: ports, upstream
   * addresses, each service's database.
   */
  settings?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Stream every line the services print here instead of keeping them all (npm start). */
  output?: LineSink;
  /** Called once the services are spawned, with what stops them (so a signal during the start can). */
  onSpawned?: (stop: () => Promise<void>) => void;
  /** How long readiness may take (default 30 s). */
  readyTimeoutMs?: number;
  /** Run each service's compiled dist/ (`npm run build` first), as the images do: the bench measures that. */
  compiled?: boolean;
}

/** The start failed: `summary` is one line naming the cause; the message adds the services' last lines. */
export class StackStartError extends Error {
  readonly summary: string;
  constructor(summary: string, detail: string, cause?: unknown) {
    super(`${summary}\n${detail}`, { cause });
    this.summary = summary;
  }
}

export interface Stack {
  /** The gateway on 127.0.0.1, for server-side callers. */
  gatewayUrl: string;
  /** The gateway's public URL (what browsers use; cookies and origins are bound to it). */
  publicUrl: string;
  urls: { gatewayOps: string; identityHttp: string; identityGrpc: string; records: string; notifierHttp: string; notifierGrpc: string };
  databases: Record<'identity' | 'records' | 'notifier', string>;
  services: Record<ServiceName, ServiceProcess>;
  secrets: { auth: string; principal: string };
  stop(): Promise<void>;
}

export const randomSecret = () => randomBytes(32).toString('base64url');

/** Records connects as its application role (row-level security applies), migrating as the owner. */
export function recordsAppUrl(ownerUrl: string, password = 'records_app'): string {
  const url = new URL(ownerUrl);
  url.username = 'records_app';
  url.password = password;
  return url.toString();
}

export interface StackWiring {
  ports: Record<StackPort, number>;
  databases: Record<'identity' | 'records' | 'notifier', string>;
  secrets: { auth: string; principal: string };
  publicUrl: string;
}

/** A wildcard bind address is reached on loopback; any other HOST as it is. */
const reach = (settings: Record<string, string> | undefined) => {
  const host = settings?.HOST;
  return !host || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
};

/** Each service's environment: defaults, then the operator's settings, then the wiring, then test overrides. */
export function stackEnv(options: StackOptions, wiring: StackWiring): Record<ServiceName, Record<string, string>> {
  const { ports, databases, secrets, publicUrl } = wiring;
  const cors = (options.corsAllowedOrigins ?? []).join(',');
  const at = (service: ServiceName, port: number) => `${reach(options.settings?.[service])}:${port}`;
  const env = (name: ServiceName, defaults: Record<string, string>, wired: Record<string, string>) => ({
    HOST: '127.0.0.1',
    ...defaults,
    ...options.settings?.[name],
    ...wired,
    ...options.env?.all,
    ...options.env?.[name],
  });
  return {
    notifier: env(
      'notifier',
      { MAIL_FROM: 'SIMRS <no-reply@simrs.local>' },
      {
        HTTP_PORT: String(ports.notifierHttp),
        GRPC_PORT: String(ports.notifierGrpc),
        DATABASE_URL: databases.notifier,
        SMTP_URL: options.smtpUrl,
      },
    ),
    identity: env(
      'identity',
      { CORS_ALLOWED_ORIGINS: cors, AUTH_SECRET: secrets.auth },
      {
        HTTP_PORT: String(ports.identityHttp),
        GRPC_PORT: String(ports.identityGrpc),
        DATABASE_URL: databases.identity,
        REDIS_URL: options.redisUrl,
        NOTIFIER_GRPC: at('notifier', ports.notifierGrpc),
        PUBLIC_URL: publicUrl,
      },
    ),
    records: env(
      'records',
      { PRINCIPAL_SECRET: secrets.principal },
      {
        HTTP_PORT: String(ports.records),
        DATABASE_URL: recordsAppUrl(databases.records),
        MIGRATION_DATABASE_URL: databases.records,
        PUBLIC_URL: publicUrl,
        REDIS_URL: options.redisUrl,
      },
    ),
    gateway: env(
      'gateway',
      { CORS_ALLOWED_ORIGINS: cors, PRINCIPAL_SECRET: secrets.principal },
      {
        GATEWAY_PORT: String(ports.gateway),
        OPS_PORT: String(ports.gatewayOps),
        PUBLIC_URL: publicUrl,
        IDENTITY_URL: `http://${at('identity', ports.identityHttp)}`,
        IDENTITY_GRPC: at('identity', ports.identityGrpc),
        RECORDS_URL: `http://${at('records', ports.records)}`,
        REDIS_URL: options.redisUrl,
      },
    ),
  };
}

/**
 * Like startService, but every line goes to `output` as it comes and only the last 50 are kept. The
 * process gets its own process group, so a terminal's Ctrl-C reaches npm start alone, which stops the
 * services in order. An IPC channel to npm start stops the service when npm start dies without doing so
 * (SIGKILL): the service's lifecycle drains and exits when the channel closes.
 */
function streamService(name: ServiceName, env: Record<string, string>, output: LineSink, compiled?: boolean): ServiceProcess {
  const child = spawn(process.execPath, serviceArgs(compiled), {
    cwd: resolve(repoRoot, SERVICE_DIRS[name]),
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...SERVICE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  const last = new LastLines(50);
  eachLine(child.stdout!, (line) => {
    last.push(line);
    output(name, line, 'stdout');
  });
  eachLine(child.stderr!, (line) => {
    last.push(line);
    output(name, line, 'stderr');
  });
  const exited = new Promise<number | null>((res) => child.once('exit', (code, signal) => res(code ?? (signal ? 128 : null))));
  return {
    name,
    child,
    lines: last.lines,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

const running = (s: ServiceProcess) => s.child.exitCode === null && s.child.signalCode === null;

/** After a failed start: SIGTERM to every service at once, SIGKILL to what still runs after `graceMs`. */
async function stopAtOnce(services: ServiceProcess[], graceMs: number): Promise<void> {
  const alive = services.filter(running);
  const exits = alive.map((s) => new Promise((r) => s.child.once('exit', r)));
  for (const s of alive) s.child.kill('SIGTERM');
  const timer = setTimeout(() => alive.filter(running).forEach((s) => s.child.kill('SIGKILL')), graceMs);
  await Promise.all(exits);
  clearTimeout(timer);
}

/** Rejects as soon as one of the services exits, naming it and its last words. */
function firstExit(services: Record<ServiceName, ServiceProcess>): { promise: Promise<never>; cancel(): void } {
  const listeners: Array<() => void> = [];
  const promise = new Promise<never>((_, reject) => {
    for (const service of Object.values(services)) {
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        // Give the pipes a moment to deliver the last lines (the reason, usually).
        setTimeout(() => {
          const said = service.lines.filter((l) => l.trim()).map(messageOf);
          const why = said.at(-1) ? `: ${said.at(-1)}` : '';
          reject(new Error(`${service.name} exited during start (${signal ?? `code ${code}`})${why}`));
        }, 100);
      };
      service.child.once('exit', onExit);
      listeners.push(() => service.child.off('exit', onExit));
    }
  });
  promise.catch(() => {});
  return { promise, cancel: () => listeners.forEach((off) => off()) };
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const prefix = options.dbPrefix ?? '';
  const port = async (key: StackPort) => options.ports?.[key] ?? (await freePort());
  const ports: Record<StackPort, number> = {
    gateway: await port('gateway'),
    gatewayOps: await port('gatewayOps'),
    identityHttp: await port('identityHttp'),
    identityGrpc: await port('identityGrpc'),
    records: await port('records'),
    notifierHttp: await port('notifierHttp'),
    notifierGrpc: await port('notifierGrpc'),
  };
  const databases = {
    identity: databaseUrl(options.postgresUrl, `${prefix}identity`),
    records: databaseUrl(options.postgresUrl, `${prefix}records`),
    notifier: databaseUrl(options.postgresUrl, `${prefix}notifier`),
  };
  await Promise.all(Object.values(databases).map(ensureDatabase));

  const secrets = options.secrets ?? { auth: randomSecret(), principal: randomSecret() };
  const publicUrl = options.publicUrl ?? `http://localhost:${ports.gateway}`;
  const env = stackEnv(options, { ports, databases, secrets, publicUrl });
  // Compiled, the services run as in their pods, with the heap limit the pod's memory gives them.
  if (options.compiled)
    for (const name of SERVICE_NAMES)
      env[name] = { ...env[name], NODE_OPTIONS: [podHeapOption(name), env[name].NODE_OPTIONS].filter(Boolean).join(' ') };
  const launch = (name: ServiceName) =>
    options.output
      ? streamService(name, env[name], options.output, options.compiled)
      : startService(name, SERVICE_DIRS[name], env[name], { compiled: options.compiled });

  const services = {} as Record<ServiceName, ServiceProcess>;
  for (const name of ['notifier', 'identity', 'records', 'gateway'] as const) services[name] = launch(name);

  const stop = async () => {
    // Front to back, so that nothing calls a service that is already gone.
    for (const name of ['gateway', 'records', 'identity', 'notifier'] as const) await services[name].stop();
    if (options.dropDatabasesOnStop ?? Boolean(options.dbPrefix)) await Promise.all(Object.values(databases).map(dropDatabase));
  };
  options.onSpawned?.(stop);
  const at = (key: StackPort) => `127.0.0.1:${ports[key]}`;
  const urls = {
    gatewayOps: `http://${at('gatewayOps')}`,
    identityHttp: `http://${at('identityHttp')}`,
    identityGrpc: at('identityGrpc'),
    records: `http://${at('records')}`,
    notifierHttp: `http://${at('notifierHttp')}`,
    notifierGrpc: at('notifierGrpc'),
  };
  const exit = firstExit(services);
  const timeout = options.readyTimeoutMs ?? 30_000;
  try {
    await Promise.race([
      exit.promise,
      Promise.all(
        [urls.notifierHttp, urls.identityHttp, urls.records, urls.gatewayOps].map((url) => waitForReady(`${url}/readyz`, timeout)),
      ),
    ]);
  } catch (err) {
    const tail = Object.values(services)
      .map(
        (s) =>
          `--- ${s.name} (${running(s) ? 'running' : `exit ${s.child.exitCode ?? s.child.signalCode}`})\n${s.lines.slice(-15).join('\n')}`,
      )
      .join('\n');
    // Services still starting hold nothing worth a graceful drain; be quick (npm start has 5 s to say why).
    await stopAtOnce(Object.values(services), 1_500);
    if (options.dropDatabasesOnStop ?? Boolean(options.dbPrefix)) await Promise.all(Object.values(databases).map(dropDatabase));
    const summary = (err as Error).message.includes('exited during start')
      ? (err as Error).message
      : `the stack did not become ready: ${(err as Error).message}`;
    throw new StackStartError(summary, tail, err);
  } finally {
    exit.cancel();
  }
  return { gatewayUrl: `http://127.0.0.1:${ports.gateway}`, publicUrl, urls, databases, services, secrets, stop };
}
