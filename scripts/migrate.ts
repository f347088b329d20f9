// `npm run migrate`: create (when missing) and migrate every service's database on the Postgres server
// named by DATABASE_URL, by running each service's own `src/db/migrate.ts` — the same command the
// Kubernetes migration Jobs run.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { loadConfig, urlWith, z } from '@simrs/platform/config';
import { databaseUrl, ensureDatabase } from '@simrs/platform/db';
import { repoRoot } from './lib/paths.ts';
import { recordsAppUrl } from './lib/stack.ts';

const env = loadConfig(z.object({ DATABASE_URL: urlWith('postgres', 'postgresql') }));

function run(workspace: string, vars: Record<string, string>): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['src/db/migrate.ts'], {
      cwd: resolve(repoRoot, workspace),
      env: { ...process.env, ...vars },
      stdio: 'inherit',
    });
    child.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`${workspace}: migration exited ${code}`))));
  });
}

const urls = {
  identity: databaseUrl(env.DATABASE_URL, 'identity'),
  records: databaseUrl(env.DATABASE_URL, 'records'),
  notifier: databaseUrl(env.DATABASE_URL, 'notifier'),
};
try {
  for (const url of Object.values(urls)) await ensureDatabase(url);
  await run('services/identity', { DATABASE_URL: urls.identity });
  await run('services/records', { MIGRATION_DATABASE_URL: urls.records, DATABASE_URL: recordsAppUrl(urls.records) });
  await run('services/notifier', { DATABASE_URL: urls.notifier });
  console.log('migrated: identity, records, notifier');
} catch (err) {
  console.error(`npm run migrate failed: ${(err as Error).message}`);
  process.exit(1);
}
