import { createPool, migrate } from '@simrs/platform/db';
import { markDraining } from '@simrs/platform/health';
import { handleSignals, onShutdown } from '@simrs/platform/lifecycle';
import { config } from './config.ts';
import { log } from './log.ts';
import { migrationsDir } from './migrate.ts';
import { createRecordsServer } from './server.ts';

if (config.MIGRATE_ON_START) {
  const owner = createPool(config.MIGRATION_DATABASE_URL ?? config.DATABASE_URL, { max: 1 });
  await migrate(owner, migrationsDir, log);
  await owner.end();
}
const pool = createPool(config.DATABASE_URL);
const server = createRecordsServer(config, { postgres: () => pool.query('select 1') });
server.listen(config.HTTP_PORT, config.HOST, () => log.info({ port: config.HTTP_PORT }, 'records listening'));

handleSignals(log);
onShutdown('stop accepting', () => markDraining());
onShutdown('http', () => new Promise((resolve) => server.close(resolve)));
onShutdown('postgres', () => pool.end());
