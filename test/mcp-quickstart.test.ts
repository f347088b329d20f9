// The MCP quickstart of the README runs as written: the lines between its markers go to bash unchanged,
// against a real stack with a clinic day registered; the test plays the doctor at the browser (sign-in,
// consent) when the script prints its OPEN line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { freePort, repoRoot } from '@simrs/platform/testing';
import { seedClinicDay } from './support/mcp.ts';
import { authorizeWithFetch, Browserless, startOAuthWorld } from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';

const ADMIN = 'admin@rs-demo.test';
const DOCTOR = 'dokter@rs-demo.test';
const NURSE = 'perawat@rs-demo.test';
let world: OAuthWorld;

before(async () => {
  world = await startOAuthWorld('mcp_quickstart', [
    { email: ADMIN, tenant: 'rs-demo', role: 'tenant_admin' },
    { email: DOCTOR, tenant: 'rs-demo', role: 'doctor' },
    { email: NURSE, tenant: 'rs-demo', role: 'nurse' },
  ]);
  const [admin, nurse] = [new Browserless(world.stack), new Browserless(world.stack)];
  await admin.signIn(world.smtp, ADMIN);
  await nurse.signIn(world.smtp, NURSE);
  await seedClinicDay({ admin, nurse }, 'no-one-assigned');
});

after(async () => {
  await world?.stop();
});

/** The shell lines of the README between the MCP quickstart markers. */
function quickstartLines(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split('<!-- mcp-quickstart:start -->')[1]?.split('<!-- mcp-quickstart:end -->')[0];
  const code = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, 'the README has the MCP quickstart block');
  return code;
}

test("the README's MCP quickstart, copied and pasted, ends with today's worklist", async () => {
  const port = await freePort();
  const child = spawn('bash', ['-euo', 'pipefail', '-c', quickstartLines()], {
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
      const { callback } = await authorizeWithFetch(world.stack, world.smtp, browser, new URL(line.slice(5)), { email: DOCTOR });
      assert.equal(callback.host, `127.0.0.1:${port}`);
      steps.push(fetch(callback).then((res) => res.text()));
    }
  }
  const code = await new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  );
  await Promise.all(steps);
  const text = output.join('\n');
  assert.equal(code, 0, `${text}\n${stderr}`);
  assert.match(text, /^1\. registered client /m);
  assert.match(text, /^2\. authorized for http:\/\/localhost:\d+\/api\/v1\/mcp \(scope: simrs:read\)$/m);
  assert.match(text, /^3\. tools: .*clinic_worklist/m);
  assert.match(text, /^4\. today's worklist: 1 visit\(s\)$/m);
  assert.match(text, /^ {3}Poli Umum #1 Siti Rahmawati \(arrived\)$/m);
});
