// `npm start`: the whole stack on one machine. Uses DATABASE_URL (a Postgres server URL; each service
// gets its own database on it) and REDIS_URL when set; otherwise an embedded Postgres and a private
// redis-server, both keeping their data under .data/. Migrates, seeds the development tenants, starts
// the four services, waits until they are ready and prints where everything is. Ctrl-C stops it all.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, port, urlWith, z } from '@simrs/platform/config';
import { repoRoot, waitFor } from '@simrs/platform/testing';
import { startEmbeddedPostgres } from './lib/postgres.ts';
import { REDIS_INSTALL_HINT, redisServerAvailable, startRedisServer } from './lib/redis.ts';
import { randomSecret, startStack } from './lib/stack.ts';
import { seedDevelopmentData } from './lib/seed.ts';

const env = loadConfig(
  z.object({
    DATABASE_URL: urlWith('postgres', 'postgresql').optional(),
    REDIS_URL: urlWith('redis', 'rediss').optional(),
    SMTP_URL: urlWith('smtp', 'smtps').optional(),
    GATEWAY_PORT: port(8080),
    PUBLIC_URL: urlWith('http', 'https').optional(),
    CORS_ALLOWED_ORIGINS: z.string().optional(),
  }),
);

const dataDir = join(repoRoot, '.data');
mkdirSync(dataDir, { recursive: true });
const cleanups: Array<() => Promise<unknown>> = [];
let stopping = false;
async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    console.log('\nstopping…');
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err: unknown) => console.error(String(err)));
  }
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

/** Secrets persist across restarts so that sessions survive a second `npm start`. */
function localSecrets(): { auth: string; principal: string } {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { auth: string; principal: string };
  const secrets = { auth: randomSecret(), principal: randomSecret() };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

async function startMailCatcher(): Promise<{ smtpUrl: string; webUrl: string }> {
  const child: ChildProcess = spawn(process.execPath, ['scripts/mailcatcher.ts'], {
    cwd: repoRoot,
    env: { ...process.env, MAILCATCHER_SMTP_PORT: '1025', MAILCATCHER_HTTP_PORT: '8025' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(async () => child.kill('SIGTERM'));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor('the mail catcher', async () => /mailcatcher smtp=\d+/.test(output), 15_000);
  const smtp = /smtp=(\d+)/.exec(output)?.[1];
  const http = /http=(\d+)/.exec(output)?.[1];
  return { smtpUrl: `smtp://127.0.0.1:${smtp}`, webUrl: `http://127.0.0.1:${http}` };
}

try {
  const postgresUrl = env.DATABASE_URL ?? (await startEmbeddedPostgres(join(dataDir, 'postgres'), cleanups));
  let redisUrl = env.REDIS_URL;
  if (!redisUrl) {
    if (!redisServerAvailable()) {
      console.error(REDIS_INSTALL_HINT);
      await stopAll(1);
    }
    const redis = await startRedisServer({ port: 6380, dir: join(dataDir, 'redis') });
    cleanups.push(() => redis.stop());
    redisUrl = redis.url;
  }
  const mail = env.SMTP_URL ? undefined : await startMailCatcher();
  const publicUrl = env.PUBLIC_URL ?? `http://localhost:${env.GATEWAY_PORT}`;
  const stack = await startStack({
    postgresUrl,
    redisUrl: redisUrl!,
    smtpUrl: env.SMTP_URL ?? mail!.smtpUrl,
    publicUrl,
    secrets: localSecrets(),
    corsAllowedOrigins: (env.CORS_ALLOWED_ORIGINS ?? '').split(',').filter(Boolean),
    ports: {
      gateway: env.GATEWAY_PORT,
      gatewayOps: 8081,
      identityHttp: 4001,
      identityGrpc: 50051,
      records: 4002,
      notifierHttp: 4003,
      notifierGrpc: 50052,
    },
    env: { all: { HOST: '127.0.0.1', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' } },
  });
  cleanups.push(() => stack.stop());
  for (const service of Object.values(stack.services)) {
    service.child.once('exit', (code) => {
      if (stopping) return;
      console.error(`${service.name} exited (${code}); last lines:\n${service.lines.slice(-20).join('\n')}`);
      void stopAll(1);
    });
  }
  await seedDevelopmentData(stack);
  console.log(`
SIMRS is running.
  gateway         ${publicUrl}
  health check    ${publicUrl}/trpc/healthCheck
  sign in         ${publicUrl}/auth/sign-in   (e.g. admin@rs-demo.test, then read the code with \`npm run mail\`)
  playground      ${publicUrl}/playground/
  REST API docs   ${publicUrl}/api/v1/docs
  ${mail ? `mail catcher    ${mail.webUrl}   (or \`npm run mail\`)` : `mail            via SMTP_URL`}
Data is kept under .data/ (delete it to start afresh). Ctrl-C stops everything.`);
} catch (err) {
  console.error(`npm start failed: ${(err as Error).message}`);
  await stopAll(1);
}
