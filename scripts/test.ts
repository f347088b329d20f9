// `npm test`: every unit, integration and cross-service test, with node's built-in runner. Uses
// DATABASE_URL (a Postgres server URL) and REDIS_URL when set; otherwise provisions an embedded
// Postgres and a redis-server for the run, like `npm start` does.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './lib/paths.ts';
import { startEmbeddedPostgres } from './lib/postgres.ts';
import { REDIS_INSTALL_HINT, redisServerAvailable, startRedisServer } from './lib/redis.ts';

const cleanups: Array<() => Promise<unknown>> = [];
const env: NodeJS.ProcessEnv = { ...process.env };

if (!redisServerAvailable()) {
  console.error(REDIS_INSTALL_HINT);
  process.exit(1);
}
if (!env.DATABASE_URL) {
  const dir = join(repoRoot, '.data', 'test-postgres');
  rmSync(dir, { recursive: true, force: true });
  env.DATABASE_URL = await startEmbeddedPostgres(dir, cleanups, 5434);
  console.log(`tests use an embedded Postgres (${dir})`);
}
if (!env.REDIS_URL) {
  const redis = await startRedisServer();
  cleanups.push(() => redis.stop());
  env.REDIS_URL = redis.url;
}

// Files given on the command line run alone (npm test -- gateway/src/gateway.int.test.ts).
const files = process.argv.slice(2);
const patterns =
  files.length > 0
    ? files
    : [
        'packages/*/src/**/*.test.ts',
        'proto/src/**/*.test.ts',
        'gateway/src/**/*.test.ts',
        'services/*/src/**/*.test.ts',
        'test/**/*.test.ts',
      ];
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-timeout=300000', ...patterns], {
  cwd: repoRoot,
  env,
  stdio: 'inherit',
});
const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
process.exit(code);
