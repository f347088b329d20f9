// `node src/db/migrate.ts`: provision the application role and apply this service's migrations as the
// owner (MIGRATION_DATABASE_URL), then exit. The Kubernetes migration Job runs this; the service runs
// the same steps at start when MIGRATE_ON_START is true.
import { fileURLToPath } from 'node:url';
import { createPool, migrate } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { provisionAppRole } from './roles.ts';

export const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

export async function migrateRecords(ownerUrl: string, appUrl: string, log: Logger): Promise<string[]> {
  const owner = createPool(ownerUrl, { max: 1 });
  try {
    await provisionAppRole(owner, appUrl);
    return await migrate(owner, migrationsDir, log);
  } finally {
    await owner.end();
  }
}

if (import.meta.main) {
  const { loadConfig, urlWith, z } = await import('@simrs/platform/config');
  // The platform's logger directly: the service's own (server/log.ts) sits above this folder.
  const { createLogger } = await import('@simrs/platform/logger');
  const log = createLogger('records');
  const env = loadConfig(
    z.object({ DATABASE_URL: urlWith('postgres', 'postgresql'), MIGRATION_DATABASE_URL: urlWith('postgres', 'postgresql') }),
  );
  try {
    const applied = await migrateRecords(env.MIGRATION_DATABASE_URL, env.DATABASE_URL, log);
    log.info({ applied: applied.length }, 'records migrations done');
  } catch (err) {
    console.error(`records migration failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
