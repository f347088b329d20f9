// Backups and point-in-time restore with pgBackRest, for a Postgres cluster on this machine (`npm run
// backup`, `npm run restore`, the restore drill in test/recovery). The repository is encrypted
// (aes-256-cbc) and zstd-compressed; every WAL segment is pushed to it by `archive_command` as soon as
// it is full (or `archive_timeout` ends it), so a restore can stop at any moment after the first backup.
//
// Postgres refuses to run as root, so when this runs as root the server, initdb and pgBackRest run as
// the `postgres` system user, and the files they touch belong to it.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export const STANZA = 'simrs';
/** Debian's Postgres 15 (pgBackRest 2.45 supports up to 15); PG_BIN points elsewhere. */
export const pgBin = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

const asRoot = process.getuid?.() === 0;

/** The `postgres` system user's ids when this runs as root (the server then runs as that user). */
export function owner(): { uid: number; gid: number } | undefined {
  if (!asRoot) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root needs a `postgres` system user (apt-get install postgresql-common)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A directory the server user owns (made if missing). */
export function ownedDir(dir: string, mode = 0o700): string {
  // Parents with the default mode: the server user must be able to reach the directory.
  mkdirSync(dirname(dir), { recursive: true });
  mkdirSync(dir, { recursive: true, mode });
  const user = owner();
  if (user) chownSync(dir, user.uid, user.gid);
  chmodSync(dir, mode);
  return dir;
}

/** Runs a Postgres or pgBackRest program as the server user; rejects with its stderr. */
export async function asServerUser(program: string, args: string[], timeoutMs = 120_000): Promise<string> {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  try {
    const { stdout } = await run(file, argv, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${program} ${args.filter((a) => !a.startsWith('--config')).join(' ')}: ${e.stderr || e.stdout || e.message}`, {
      cause: err,
    });
  }
}

export interface Repository {
  /** pgBackRest's configuration file (holds the cipher passphrase: mode 0600). */
  config: string;
  /** Where the encrypted backups and WAL are kept. */
  path: string;
}

/** Writes the configuration of a posix repository in `dir` for the cluster at `pgData`:`pgPort`. */
export function writeRepository(dir: string, cluster: { pgData: string; pgPort: number }, cipherPass: string): Repository {
  ownedDir(dir);
  const path = ownedDir(join(dir, 'repo'));
  for (const sub of ['log', 'lock', 'spool']) ownedDir(join(dir, sub));
  const config = join(dir, 'pgbackrest.conf');
  writeFileSync(
    config,
    [
      '[global]',
      `repo1-path=${path}`,
      'repo1-cipher-type=aes-256-cbc',
      `repo1-cipher-pass=${cipherPass}`,
      'repo1-retention-full=2',
      'compress-type=zst',
      `log-path=${join(dir, 'log')}`,
      `lock-path=${join(dir, 'lock')}`,
      `spool-path=${join(dir, 'spool')}`,
      'log-level-console=warn',
      'start-fast=y',
      '',
      `[${STANZA}]`,
      `pg1-path=${cluster.pgData}`,
      `pg1-port=${cluster.pgPort}`,
      `pg1-socket-path=${cluster.pgData}`,
      'pg1-user=postgres',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const user = owner();
  if (user) chownSync(config, user.uid, user.gid);
  return { config, path };
}

export const pgbackrest = (repo: Repository, ...args: string[]) =>
  asServerUser('pgbackrest', [`--config=${repo.config}`, `--stanza=${STANZA}`, ...args], 600_000);

/** A new cluster in `pgData` whose WAL goes to `repo` continuously; not started. */
export async function initArchivedCluster(pgData: string, port: number, repo: Repository): Promise<void> {
  ownedDir(pgData);
  await asServerUser(join(pgBin, 'initdb'), ['-D', pgData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
  const settings = [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${pgData}'`,
    'wal_level = replica',
    'archive_mode = on',
    `archive_command = 'pgbackrest --config=${repo.config} --stanza=${STANZA} archive-push %p'`,
    // A quiet cluster still ends its segment within this, so the repository is never further behind.
    'archive_timeout = 60',
    'max_connections = 60',
    'shared_buffers = 32MB',
  ];
  writeFileSync(join(pgData, 'postgresql.conf'), `${readFileSync(join(pgData, 'postgresql.conf'), 'utf8')}\n${settings.join('\n')}\n`);
}

export async function startCluster(pgData: string, port: number): Promise<string> {
  await asServerUser(join(pgBin, 'pg_ctl'), [
    '-D',
    pgData,
    '-l',
    join(pgData, 'server.log'),
    '-w',
    '-t',
    '120',
    '-o',
    `-p ${port} -k ${pgData}`,
    'start',
  ]);
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

export async function stopCluster(pgData: string, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
  if (!existsSync(join(pgData, 'postmaster.pid'))) return;
  await asServerUser(join(pgBin, 'pg_ctl'), ['-D', pgData, '-m', mode, '-w', '-t', '60', 'stop']).catch(() => {});
}

/** Creates the stanza when it is missing, then takes a backup (full the first time, else `type`). */
export async function backup(repo: Repository, type: 'full' | 'diff' | 'incr' = 'full'): Promise<void> {
  await pgbackrest(repo, 'stanza-create');
  await pgbackrest(repo, `--type=${type}`, 'backup');
}

/** Ends the current WAL segment and waits until the repository holds it (so a restore can reach now). */
export async function archiveNow(serverUrl: string, timeoutMs = 60_000): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ wal: string }>('select pg_walfile_name(pg_switch_wal()) as wal');
    const segment = rows[0]!.wal;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows: state } = await client.query<{ last: string | null }>('select last_archived_wal as last from pg_stat_archiver');
      if (state[0]?.last && state[0].last >= segment) return;
      if (Date.now() > deadline) throw new Error(`WAL segment ${segment} not archived within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

/**
 * Restores the repository's newest backup into the empty directory `into`, replays WAL up to `target`
 * (a timestamp with its zone) and promotes: the result is a new, writable cluster on `port`, which
 * archives nothing (it is a copy; point a repository at it once it replaces the original).
 */
export async function restoreTo(repo: Repository, target: string, into: string, port: number): Promise<string> {
  ownedDir(into);
  await pgbackrest(
    repo,
    `--pg1-path=${into}`,
    '--type=time',
    `--target=${target}`,
    '--target-action=promote',
    '--archive-mode=off',
    'restore',
  );
  try {
    const url = await startCluster(into, port);
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {}); // the server ending recovery with a FATAL is reported below
    await client.connect();
    try {
      const deadline = Date.now() + 120_000;
      while ((await client.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0]!.r) {
        if (Date.now() > deadline) throw new Error('the restored cluster did not leave recovery');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await client.end().catch(() => {});
    }
    return url;
  } catch (err) {
    // e.g. "recovery ended before configured recovery target was reached": the WAL up to the target
    // is not in the repository (not archived yet, or the target is later than the last archived write).
    const fatal = readFileSync(join(into, 'server.log'), 'utf8')
      .split('\n')
      .filter((line) => /FATAL/.test(line))
      .slice(-1)[0];
    throw new Error(fatal ? `the restored server stopped: ${fatal}` : (err as Error).message, { cause: err });
  }
}
