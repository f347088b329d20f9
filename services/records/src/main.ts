import { markDraining } from '@simrs/platform/health';
import { handleSignals, onShutdown } from '@simrs/platform/lifecycle';
import { observePgPool } from '@simrs/platform/pool-metrics';
import { createRedis } from '@simrs/platform/redis';
import { loadRecordsConfig } from './config.ts';
import { assertAppRole, createAppPool, migrateRecords } from './db/index.ts';
import { startExportWorker } from './fhir/index.ts';
import { log } from './server/index.ts';
import { observeOutbox, startSatusehatWorker, useSatusehat } from './satusehat/index.ts';
import { createRecordsServer } from './server/server.ts';

const config = loadRecordsConfig();

try {
  if (config.MIGRATE_ON_START) await migrateRecords(config.MIGRATION_DATABASE_URL!, config.DATABASE_URL, log);
} catch (err) {
  console.error(`records: migration failed: ${(err as Error).message}`);
  process.exit(1);
}

const pool = createAppPool(config.DATABASE_URL, { max: config.DB_POOL_MAX, statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS });
try {
  // Fail closed: a role that could read across tenants (superuser, BYPASSRLS, table owner) is refused.
  await assertAppRole(pool);
} catch (err) {
  console.error(`records: ${(err as Error).message}`);
  await pool.end();
  process.exit(1);
}

observePgPool('records', pool);
const stopCountingOutbox = observeOutbox(pool);
// SATUSEHAT sending needs the shared token cache; without REDIS_URL finished visits wait in the outbox.
const redis = config.REDIS_URL ? createRedis({ ...config, REDIS_URL: config.REDIS_URL }, 'records') : undefined;
useSatusehat(config, redis);
if (!redis) log.warn('REDIS_URL is not set: finished visits wait in the SATUSEHAT outbox until it is');
const worker = redis && config.SATUSEHAT_WORKER ? startSatusehatWorker({ pool, redis, config, log }) : undefined;
const server = createRecordsServer(config, { pool, checks: { postgres: () => pool.query('select 1') } });
server.keepAliveTimeout = 65_000;
server.listen(config.HTTP_PORT, config.HOST, () =>
  log.info({ port: config.HTTP_PORT, prefix: config.INTEGRATION_PREFIX }, 'records listening'),
);

const exportWorker = startExportWorker(pool, {
  pageSize: config.EXPORT_PAGE_SIZE,
  ttlSeconds: config.EXPORT_TTL_SECONDS,
  intervalMs: config.EXPORT_WORKER_INTERVAL_MS,
  leaseSeconds: config.EXPORT_LEASE_SECONDS,
  lanes: config.EXPORT_LANES,
  removeBatch: config.EXPORT_REMOVE_BATCH,
  databaseUrl: config.DATABASE_URL,
  statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
});

handleSignals(log);
onShutdown('stop accepting', () => markDraining());
onShutdown('http', () => new Promise((resolve) => server.close(resolve)));
onShutdown('satusehat worker', async () => worker?.stop());
onShutdown('bulk export worker', () => exportWorker.stop());
onShutdown('outbox metrics', async () => stopCountingOutbox());
onShutdown('postgres', () => pool.end());
onShutdown('redis', async () => void (await redis?.quit()));
