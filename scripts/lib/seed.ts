// Development data: the tenants, users and patients the README's walkthrough uses. Each service owns
// its seed script (idempotent); this only runs them against the stack's databases.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from '@simrs/platform/testing';
import type { Stack } from './stack.ts';

function run(workspace: string, env: Record<string, string>): Promise<void> {
  const script = resolve(repoRoot, workspace, 'src/db/seed.ts');
  if (!existsSync(script)) return Promise.resolve();
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['src/db/seed.ts'], {
      cwd: resolve(repoRoot, workspace),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`${workspace} seed exited ${code}`))));
  });
}

export async function seedDevelopmentData(stack: Stack): Promise<void> {
  await Promise.all([
    run('services/identity', { DATABASE_URL: stack.databases.identity, IDENTITY_GRPC: stack.urls.identityGrpc }),
    run('services/records', { DATABASE_URL: stack.databases.records }),
  ]);
}
