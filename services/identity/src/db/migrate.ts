// identity's schema: Better Auth's tables (generated from the configured plugins, applied with its
// programmatic migrator), then our own SQL in migrations/. Runs at start (MIGRATE_ON_START) and as
// `node src/db/migrate.ts` (the Kubernetes migration Job), under an advisory lock so that replicas
// starting together do not race.
import { fileURLToPath } from 'node:url';
import { getMigrations } from 'better-auth/db/migration';
import type { Pool } from '@simrs/platform/db';
import { migrate } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { authOptions } from '../auth/index.ts';
import type { AuthDeps } from '../auth/index.ts';
import { loadIdentityConfig } from '../config.ts';
import type { Config } from '../config.ts';
import type { IdentityStorage } from '../sessions/index.ts';

export const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

const LOCK_ID = 0x1d_e7_17_01;

const unused = () => {
  throw new Error('not available while migrating');
};

/** The same options the service runs with (the schema depends on them), minus live dependencies. */
function schemaOptions(config: Config, pool: Pool, log: Logger) {
  const storage: IdentityStorage = {
    keyName: unused,
    get: unused,
    getAndDelete: unused,
    set: unused,
    delete: unused,
    increment: unused,
    markUserSessionsRevoked: unused,
  };
  const options = authOptions({ config, pool, storage, log } as Partial<AuthDeps> as AuthDeps);
  // Better Auth's migrator reads the schema through a database, not an adapter: the pool itself.
  return { ...options, database: pool };
}

export async function migrateIdentity(config: Config, pool: Pool, log: Logger): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    const { toBeCreated, toBeAdded, runMigrations } = await getMigrations(schemaOptions(config, pool, log));
    if (toBeCreated.length || toBeAdded.length) {
      log.info({ create: toBeCreated.map((t) => t.table), add: toBeAdded.map((t) => t.table) }, 'applying Better Auth migrations');
      await runMigrations();
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    client.release();
  }
  await migrate(pool, migrationsDir, log);
}

/**
 * Settings for the migration Job and the seed script: only DATABASE_URL matters to the schema, so the
 * rest may be absent there (placeholders stand in; nothing is contacted).
 */
export function migrationConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadIdentityConfig({
    PUBLIC_URL: 'http://localhost',
    REDIS_URL: 'redis://localhost',
    NOTIFIER_GRPC: 'localhost:1',
    AUTH_SECRET: 'migration-placeholder-secret-not-used-for-anything',
    // Required in production for the admin API, which a migration never serves (the chart's Job runs
    // with NODE_ENV=production and only the database URL).
    ADMIN_API_TOKEN: 'migration-placeholder-admin-token-not-used',
    ...env,
  });
}

if (import.meta.main) {
  const { createPool } = await import('@simrs/platform/db');
  const { log } = await import('../server/index.ts');
  const config = migrationConfig();
  const pool = createPool(config.DATABASE_URL, { max: 2 });
  await migrateIdentity(config, pool, log);
  await pool.end();
  log.info('identity migrations done');
}
