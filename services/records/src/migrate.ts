// `node src/migrate.ts`: apply this service's migrations and exit (the Kubernetes migration Job).
import { fileURLToPath } from 'node:url';

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

if (import.meta.main) {
  const { createPool, migrate } = await import('@simrs/platform/db');
  const { loadConfig, urlWith, z } = await import('@simrs/platform/config');
  const { log } = await import('./log.ts');
  const env = loadConfig(z.object({ DATABASE_URL: urlWith('postgres', 'postgresql'), MIGRATION_DATABASE_URL: urlWith('postgres', 'postgresql').optional() }));
  const pool = createPool(env.MIGRATION_DATABASE_URL ?? env.DATABASE_URL, { max: 1 });
  const applied = await migrate(pool, migrationsDir, log);
  await pool.end();
  log.info({ applied: applied.length }, 'records migrations done');
}
