// Applies the notifier's migrations and exits: `npm run migrate -w @simrs/notifier`, or a Kubernetes
// Job before the pods roll. Needs only DATABASE_URL (not the SMTP settings).
import { fileURLToPath } from 'node:url';
import { loadConfig, logLevel, urlWith, z } from '@simrs/platform/config';
import { createPool, migrate } from '@simrs/platform/db';
import { createLogger } from '@simrs/platform/logger';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

const env = loadConfig(z.object({ DATABASE_URL: urlWith('postgres', 'postgresql'), LOG_LEVEL: logLevel }));
const log = createLogger('notifier', env.LOG_LEVEL);
const pool = createPool(env.DATABASE_URL, { max: 1 });
try {
  const applied = await migrate(pool, MIGRATIONS, log);
  log.info({ applied: applied.length }, 'migrations done');
} catch (err) {
  log.error({ err: { message: (err as Error).message } }, 'migrations failed');
  process.exitCode = 1;
} finally {
  await pool.end();
}
