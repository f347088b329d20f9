// A documented quickstart run as written: the shell lines between a document's markers go to bash
// unchanged, against a real stack (OAuth world), while the test plays the person at the browser
// (sign-in, consent) when the script prints its OPEN line, and whatever else `onLine` answers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, repoRoot } from '@simrs/platform/testing';
import { readDoc } from './markdown.ts';
import { authorizeWithFetch, Browserless } from './oauth.ts';
import type { OAuthWorld } from './oauth.ts';

/** The `sh` block of `file` between `<!-- marker:start -->` and `<!-- marker:end -->`. */
export function quickstartLines(file: string, marker: string): string {
  const section = readDoc(file).split(`<!-- ${marker}:start -->`)[1]?.split(`<!-- ${marker}:end -->`)[0];
  const code = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, `${file} has the ${marker} block`);
  return code;
}

export interface QuickstartRun {
  code: number | null;
  /** Everything the script printed on stdout, one line each. */
  text: string;
  stderr: string;
}

/**
 * Runs `script` with the stack's addresses in SIMRS_URL, IDENTITY_GRPC and REDIRECT_PORT; signs `email`
 * in and consents at each OPEN line; hands every line to `onLine` with the same browser.
 */
export async function runQuickstart(
  world: OAuthWorld,
  script: string,
  email: string,
  onLine: (line: string, browser: Browserless) => Promise<void> = async () => {},
): Promise<QuickstartRun> {
  const port = await freePort();
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      SIMRS_URL: world.stack.publicUrl,
      IDENTITY_GRPC: world.stack.urls.identityGrpc,
      REDIRECT_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const browser = new Browserless(world.stack);
  const output: string[] = [];
  const steps: Promise<unknown>[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    output.push(line);
    if (line.startsWith('OPEN ')) {
      const { callback } = await authorizeWithFetch(world.stack, world.smtp, browser, new URL(line.slice(5)), { email });
      assert.equal(callback.host, `127.0.0.1:${port}`);
      steps.push(fetch(callback).then((res) => res.text()));
    }
    await onLine(line, browser);
  }
  const code = await new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  );
  await Promise.all(steps);
  return { code, text: output.join('\n'), stderr };
}
