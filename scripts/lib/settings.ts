// What `npm start` passes to each service: every variable the service's own settings schema reads
// (the keys of its src/config.ts, read from the source: the gateway's parses the environment when
// imported) and the standard OTEL_* variables, taken from npm start's environment. The stack then
// sets what only it can know (ports, upstream addresses, per-service databases); the tables of
// docs/settings.md list the same variables (a test keeps them in step).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';

export type ServiceName = 'notifier' | 'identity' | 'records' | 'gateway';
export const SERVICE_NAMES: readonly ServiceName[] = ['gateway', 'identity', 'records', 'notifier'];
export const SERVICE_DIRS: Record<ServiceName, string> = {
  gateway: 'gateway',
  identity: 'services/identity',
  records: 'services/records',
  notifier: 'services/notifier',
};

/** The variables a service's settings schema reads: the upper-case keys of its src/config.ts. */
export function configKeys(service: ServiceName): string[] {
  const source = readFileSync(join(repoRoot, SERVICE_DIRS[service], 'src/config.ts'), 'utf8');
  return [...new Set([...source.matchAll(/^\s+([A-Z][A-Z0-9_]*)\s*:/gm)].map((m) => m[1]!))].sort();
}

/** Read by every service's libraries (OpenTelemetry, Express) whether or not its schema names them. */
const STANDARD = (key: string) => key.startsWith('OTEL_') || key === 'NODE_ENV';

/** The settings for one service found in `env`: its schema's variables, OTEL_* and NODE_ENV. */
export function settingsFor(service: ServiceName, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const keys = new Set(configKeys(service));
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && (keys.has(entry[0]) || STANDARD(entry[0]))),
  );
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Record<ServiceName, Record<string, string>> {
  return Object.fromEntries(SERVICE_NAMES.map((s) => [s, settingsFor(s, env)])) as Record<ServiceName, Record<string, string>>;
}

export type StackPort = 'gateway' | 'gatewayOps' | 'identityHttp' | 'identityGrpc' | 'records' | 'notifierHttp' | 'notifierGrpc';

/** npm start's ports: the variable that sets each, its default, and what listens there. */
export const STACK_PORTS: Record<StackPort, { variable: string; fallback: number; what: string }> = {
  gateway: { variable: 'GATEWAY_PORT', fallback: 8080, what: 'the gateway' },
  gatewayOps: { variable: 'OPS_PORT', fallback: 8081, what: "the gateway's ops port" },
  identityHttp: { variable: 'IDENTITY_HTTP_PORT', fallback: 4001, what: 'identity' },
  identityGrpc: { variable: 'IDENTITY_GRPC_PORT', fallback: 50051, what: "identity's gRPC" },
  records: { variable: 'RECORDS_HTTP_PORT', fallback: 4002, what: 'records' },
  notifierHttp: { variable: 'NOTIFIER_HTTP_PORT', fallback: 4003, what: 'notifier' },
  notifierGrpc: { variable: 'NOTIFIER_GRPC_PORT', fallback: 50052, what: "the notifier's gRPC" },
};

/** Ports of what npm start runs besides the services, used only when the matching URL is unset. */
export const LOCAL_PORTS = {
  postgres: { variable: 'LOCAL_POSTGRES_PORT', fallback: 5433, what: 'the embedded Postgres' },
  redis: { variable: 'LOCAL_REDIS_PORT', fallback: 6380, what: 'the private redis-server' },
  mailSmtp: { variable: 'MAILCATCHER_SMTP_PORT', fallback: 1025, what: "the mail catcher's SMTP" },
  mailHttp: { variable: 'MAILCATCHER_HTTP_PORT', fallback: 8025, what: "the mail catcher's web page" },
} as const;
