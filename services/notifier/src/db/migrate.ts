// `node src/db/migrate.ts`: applies the notifier's migrations and exits (`npm run migrate -w
// @simrs/notifier`, or a Kubernetes Job before the pods roll). Needs only DATABASE_URL (not the SMTP
// settings). main.ts applies the same directory at start when MIGRATE_ON_START is true.
import { fileURLToPath } from 'node:url';
import { createPool, migrate } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';

export const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * Applies the migrations on a connection of their own, closed after: a migration may run longer than
 * the store's statement limit (main.ts), and holds its advisory lock meanwhile.
 */
export async function migrateStore(databaseUrl: string, log: Logger): Promise<string[]> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    return await migrate(pool, migrationsDir, log);
  } finally {
    await pool.end().catch(() => {});
  }
}

if (import.meta.main) {
  const { loadConfig, logLevel, urlWith, z } = await import('@simrs/platform/config');
  const { createLogger } = await import('@simrs/platform/logger');
  const env = loadConfig(z.object({ DATABASE_URL: urlWith('postgres', 'postgresql'), LOG_LEVEL: logLevel }));
  const log = createLogger('notifier', env.LOG_LEVEL);
  try {
    const applied = await migrateStore(env.DATABASE_URL, log);
    log.info({ applied: applied.length }, 'migrations done');
  } catch (err) {
    log.error({ err: { message: (err as Error).message } }, 'migrations failed');
    process.exitCode = 1;
  }
}
