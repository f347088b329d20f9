// `npm run codes -- load --system icd-10 --file <path>`: the platform operator loads a code system's
// list (e.g. the licensed ICD-10 publication, converted to the CSV described in the records README).
// Connects as the schema's owner: MIGRATION_DATABASE_URL (the records database, as the migration Job
// has it), else DATABASE_URL read as `npm run migrate` reads it (a Postgres server, whose `records`
// database is used). Checks the whole file first and loads nothing when a line is bad.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { databaseUrl } from '@simrs/platform/db';
import { CODE_SYSTEMS, CodeListError, HEADER, loadCodes, readCodeFile } from './index.ts';
import type { CodeSystem } from './index.ts';

const USAGE = `Usage: npm run codes -- load --system <system> --file <path>

  load    check every line of the CSV file (header ${HEADER.join(',')}), then in one
          transaction add or update its codes (active) and make the system's codes it lacks inactive

Systems: ${CODE_SYSTEMS.join(', ')}.
Environment: MIGRATION_DATABASE_URL (the records database as its owner), else DATABASE_URL (a Postgres
server as the owner; its "records" database is used).`;

class UsageError extends Error {}

/** The owner's URL of the records database, from the environment (see the header). */
export function ownerUrl(env: NodeJS.ProcessEnv): string {
  if (env.MIGRATION_DATABASE_URL) return env.MIGRATION_DATABASE_URL;
  if (env.DATABASE_URL) return databaseUrl(env.DATABASE_URL, 'records');
  throw new UsageError('set MIGRATION_DATABASE_URL (the records database as its owner) or DATABASE_URL (the Postgres server)');
}

function loadArgs(argv: string[]): { system: CodeSystem; file: string } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { system: { type: 'string' }, file: { type: 'string' } } });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (!values.system) throw new UsageError('--system is required');
  if (!(CODE_SYSTEMS as readonly string[]).includes(values.system)) throw new UsageError(`unknown system "${values.system}"`);
  if (!values.file) throw new UsageError('--file is required');
  // npm runs scripts from the repository root; a relative path means where the operator typed it.
  return { system: values.system as CodeSystem, file: resolve(process.env.INIT_CWD ?? process.cwd(), values.file) };
}

function hint(err: { code?: string; message: string }): string {
  if (err.code === '42P01') return ' (is the records database migrated? npm run migrate)';
  if (err.code === '42501') return ' (connect as the owner: set MIGRATION_DATABASE_URL)';
  return '';
}

async function load(argv: string[]): Promise<void> {
  const { system, file } = loadArgs(argv);
  const url = ownerUrl(process.env);
  const rows = await readCodeFile(file, system);
  const owner = new pg.Client({ connectionString: url, application_name: 'records-codes' });
  await owner.connect();
  try {
    const started = performance.now();
    const counts = await loadCodes(owner, system, rows);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${system}: ${rows.length} codes from ${file}: added ${counts.added}, updated ${counts.updated}, unchanged ${counts.unchanged}, deactivated ${counts.deactivated} (${seconds} s)`,
    );
  } finally {
    await owner.end();
  }
}

function failure(err: unknown): number {
  if (err instanceof UsageError) {
    console.error(`error: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (err instanceof CodeListError) {
    for (const p of err.problems) console.error(`line ${p.line}: ${p.message}`);
    console.error(`error: ${err.problems.length} problem${err.problems.length === 1 ? '' : 's'} in the file; nothing was loaded`);
    return 1;
  }
  const e = err as { code?: string; message: string };
  console.error(`error: ${e.message}${hint(e)}; nothing was loaded`);
  return 1;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  try {
    if (command !== 'load') throw new UsageError(`unknown command "${command}"`);
    await load(rest);
    return 0;
  } catch (err) {
    return failure(err);
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
