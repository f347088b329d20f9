// Development data: the demo hospitals `npm start` seeds (their users are listed in docs/access.md).
// Each service owns its seed script (idempotent); this only runs them against the stack's databases.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { repoRoot } from './paths.ts';
import { eachLine, LastLines, messageOf } from './logs.ts';
import type { LineSink } from './logs.ts';
import type { Stack } from './stack.ts';

export interface SeedOptions {
  /** Where the seed scripts' lines go (default: their stderr to ours, their stdout nowhere). */
  output?: LineSink;
  /** Told about each seed process, so that whoever stops the stack can stop it too. */
  track?: (child: ChildProcess) => void;
}

function run(name: string, workspace: string, env: Record<string, string>, options: SeedOptions): Promise<void> {
  const script = resolve(repoRoot, workspace, 'src/db/seed.ts');
  if (!existsSync(script)) return Promise.resolve();
  return new Promise((ok, fail) => {
    const output = options.output;
    const child = spawn(process.execPath, ['src/db/seed.ts'], {
      cwd: resolve(repoRoot, workspace),
      env: { ...process.env, ...env },
      stdio: ['ignore', output ? 'pipe' : 'ignore', output ? 'pipe' : 'inherit'],
    });
    options.track?.(child);
    const last = new LastLines(5);
    if (output) {
      eachLine(child.stdout!, (line) => (last.push(line), output(name, line, 'stdout')));
      eachLine(child.stderr!, (line) => (last.push(line), output(name, line, 'stderr')));
    }
    child.once('error', fail);
    child.once('close', (code, signal) => {
      if (code === 0) return ok();
      const said = last.lines.at(-1);
      fail(new Error(`${name} exited ${signal ?? code}${said ? `: ${messageOf(said)}` : ''}`));
    });
  });
}

/**
 * The demo clinicians' clinics, by identity's user ids (which identity generates, so records cannot
 * know them): the demo doctor works at Poli Umum, Poli Penyakit Dalam and Poli Anak (so a demo has a
 * child's chart to open), the demo nurse at Poli Umum and Poli Anak.
 */
const DEMO_CLINICIANS: Record<string, string> = { 'dokter@rs-demo.test': 'UMUM,PD,ANAK', 'perawat@rs-demo.test': 'UMUM,ANAK' };

async function demoClinicians(identityUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: identityUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; email: string }>('select id, email from "user" where email = any($1)', [
      Object.keys(DEMO_CLINICIANS),
    ]);
    return rows.map((r) => `${r.id}=${DEMO_CLINICIANS[r.email]!}`).join(';');
  } finally {
    await client.end();
  }
}

export async function seedDevelopmentData(stack: Stack, options: SeedOptions = {}): Promise<void> {
  // identity first: records assigns identity's demo clinicians to its clinics.
  await run(
    'identity seed',
    'services/identity',
    { DATABASE_URL: stack.databases.identity, IDENTITY_GRPC: stack.urls.identityGrpc },
    options,
  );
  const clinicians = await demoClinicians(stack.databases.identity);
  await run('records seed', 'services/records', { DATABASE_URL: stack.databases.records, SEED_CLINICIANS: clinicians }, options);
}
