// The local stack's backed-up Postgres (`npm run backup`, `npm run restore`): a Postgres 15 cluster in
// .data/pitr/pg whose WAL pgBackRest archives into the encrypted repository .data/pitr/backup. Run
// `npm start` with DATABASE_URL pointing at it to have every write of the local stack restorable.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { initArchivedCluster, ownedDir, startCluster, writeRepository } from './pgbackrest.ts';
import type { Repository } from './pgbackrest.ts';
import { repoRoot } from './paths.ts';

export const pitrDir = join(repoRoot, '.data', 'pitr');
export const PITR_PORT = 5435;

export interface LocalCluster {
  pgData: string;
  url: string;
  repo: Repository;
}

/**
 * The repository's passphrase: BACKUP_CIPHER_PASS, else the one generated on the first run and kept
 * beside the repository (mode 0600). Without it the backups cannot be read: keep a copy elsewhere.
 */
function cipherPass(): string {
  if (process.env.BACKUP_CIPHER_PASS) return process.env.BACKUP_CIPHER_PASS;
  const file = join(pitrDir, 'cipher-pass');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** Creates the cluster and its repository on the first call, starts it when it is not running. */
export async function localCluster(): Promise<LocalCluster> {
  ownedDir(pitrDir);
  // The server runs as the `postgres` user when this runs as root: it must be able to pass through .data.
  const data = dirname(pitrDir);
  chmodSync(data, statSync(data).mode | 0o711);
  const pgData = join(pitrDir, 'pg');
  const repo = writeRepository(join(pitrDir, 'backup'), { pgData, pgPort: PITR_PORT }, cipherPass());
  if (!existsSync(join(pgData, 'PG_VERSION'))) await initArchivedCluster(pgData, PITR_PORT, repo);
  const url = existsSync(join(pgData, 'postmaster.pid'))
    ? `postgres://postgres@127.0.0.1:${PITR_PORT}/postgres`
    : await startCluster(pgData, PITR_PORT);
  return { pgData, url, repo };
}
