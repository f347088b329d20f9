// `node src/db/migrate.ts`: applies the notifier's migrations and exits (`npm run migrate -w
// @simrs/notifier`, or a Kubernetes Job before the pods roll). Needs only DATABASE_URL (not the SMTP
// settings). main.ts applies the same directory at start when MIGRATE_ON_START is true.
import { fileURLToPath } from 'node:url';

export const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

if (import.meta.main) {
  const { loadConfig, logLevel, urlWith, z } = await import('@simrs/platform/config');
  const { createPool, migrate } = await import('@simrs/platform/db');
  const { createLogger } = await import('@simrs/platform/logger');
  const env = loadConfig(z.object({ DATABASE_URL: urlWith('postgres', 'postgresql'), LOG_LEVEL: logLevel }));
  const log = createLogger('notifier', env.LOG_LEVEL);
  const pool = createPool(env.DATABASE_URL, { max: 1 });
  try {
    const applied = await migrate(pool, migrationsDir, log);
    log.info({ applied: applied.length }, 'migrations done');
  } catch (err) {
    log.error({ err: { message: (err as Error).message } }, 'migrations failed');
    process.exitCode = 1;
  } finally {
    await pool.end();
  }
}
