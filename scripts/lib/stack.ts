// Starts the four services as separate processes against a Postgres server and a Redis, the same way
// for `npm start` and for the cross-service tests. Each service gets its own database on the server.
import { randomBytes } from 'node:crypto';
import { databaseUrl, dropDatabase, ensureDatabase } from '@simrs/platform/db';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';

export type ServiceName = 'notifier' | 'identity' | 'records' | 'gateway';

export interface StackOptions {
  /** A Postgres server URL; the services get databases `${dbPrefix}identity` etc. on it. */
  postgresUrl: string;
  redisUrl: string;
  smtpUrl: string;
  dbPrefix?: string;
  /** Fixed ports for the local stack; tests leave them out and get free ones. */
  ports?: Partial<Record<'gateway' | 'gatewayOps' | 'identityHttp' | 'identityGrpc' | 'records' | 'notifierHttp' | 'notifierGrpc', number>>;
  secrets?: { auth: string; principal: string };
  corsAllowedOrigins?: string[];
  publicUrl?: string;
  /** Drop the databases on stop; defaults to true when `dbPrefix` is set (tests), the local stack keeps them. */
  dropDatabasesOnStop?: boolean;
  /** Extra environment per service (short TTLs in tests, OTEL_* for a trace receiver, ...). */
  env?: Partial<Record<ServiceName | 'all', Record<string, string>>>;
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

export async function startStack(options: StackOptions): Promise<Stack> {
  const prefix = options.dbPrefix ?? '';
  const port = async (key: keyof NonNullable<StackOptions['ports']>) => options.ports?.[key] ?? (await freePort());
  const ports = {
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
  const cors = (options.corsAllowedOrigins ?? []).join(',');
  const env = (name: ServiceName, own: Record<string, string>) => ({
    HOST: '127.0.0.1',
    ...own,
    ...options.env?.all,
    ...options.env?.[name],
  });

  const services = {} as Record<ServiceName, ServiceProcess>;
  services.notifier = startService(
    'notifier',
    'services/notifier',
    env('notifier', {
      HTTP_PORT: String(ports.notifierHttp),
      GRPC_PORT: String(ports.notifierGrpc),
      DATABASE_URL: databases.notifier,
      SMTP_URL: options.smtpUrl,
      MAIL_FROM: 'SIMRS <no-reply@simrs.local>',
    }),
  );
  services.identity = startService(
    'identity',
    'services/identity',
    env('identity', {
      HTTP_PORT: String(ports.identityHttp),
      GRPC_PORT: String(ports.identityGrpc),
      DATABASE_URL: databases.identity,
      REDIS_URL: options.redisUrl,
      NOTIFIER_GRPC: `127.0.0.1:${ports.notifierGrpc}`,
      PUBLIC_URL: publicUrl,
      CORS_ALLOWED_ORIGINS: cors,
      AUTH_SECRET: secrets.auth,
    }),
  );
  services.records = startService(
    'records',
    'services/records',
    env('records', {
      HTTP_PORT: String(ports.records),
      DATABASE_URL: recordsAppUrl(databases.records),
      MIGRATION_DATABASE_URL: databases.records,
      PRINCIPAL_SECRET: secrets.principal,
      PUBLIC_URL: publicUrl,
    }),
  );
  services.gateway = startService(
    'gateway',
    'gateway',
    env('gateway', {
      GATEWAY_PORT: String(ports.gateway),
      OPS_PORT: String(ports.gatewayOps),
      PUBLIC_URL: publicUrl,
      IDENTITY_URL: `http://127.0.0.1:${ports.identityHttp}`,
      IDENTITY_GRPC: `127.0.0.1:${ports.identityGrpc}`,
      RECORDS_URL: `http://127.0.0.1:${ports.records}`,
      REDIS_URL: options.redisUrl,
      PRINCIPAL_SECRET: secrets.principal,
      CORS_ALLOWED_ORIGINS: cors,
    }),
  );

  const stop = async () => {
    // Front to back, so that nothing calls a service that is already gone.
    for (const name of ['gateway', 'records', 'identity', 'notifier'] as const) await services[name].stop();
    if (options.dropDatabasesOnStop ?? Boolean(options.dbPrefix)) await Promise.all(Object.values(databases).map(dropDatabase));
  };
  const urls = {
    gatewayOps: `http://127.0.0.1:${ports.gatewayOps}`,
    identityHttp: `http://127.0.0.1:${ports.identityHttp}`,
    identityGrpc: `127.0.0.1:${ports.identityGrpc}`,
    records: `http://127.0.0.1:${ports.records}`,
    notifierHttp: `http://127.0.0.1:${ports.notifierHttp}`,
    notifierGrpc: `127.0.0.1:${ports.notifierGrpc}`,
  };
  try {
    await Promise.all([
      waitForReady(`${urls.notifierHttp}/readyz`),
      waitForReady(`${urls.identityHttp}/readyz`),
      waitForReady(`${urls.records}/readyz`),
      waitForReady(`${urls.gatewayOps}/readyz`),
    ]);
  } catch (err) {
    const tail = Object.values(services)
      .map((s) => `--- ${s.name} (exit ${s.child.exitCode ?? 'running'})\n${s.lines.slice(-15).join('\n')}`)
      .join('\n');
    await stop();
    throw new Error(`stack did not become ready: ${(err as Error).message}\n${tail}`, { cause: err });
  }
  return { gatewayUrl: `http://127.0.0.1:${ports.gateway}`, publicUrl, urls, databases, services, secrets, stop };
}
