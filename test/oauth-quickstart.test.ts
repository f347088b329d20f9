// The OAuth quickstart of docs/oauth.md runs as written: the lines between its markers go
// to bash unchanged, against a real stack; the test plays the person at the browser (sign-in, consent,
// device approval) when the script prints its OPEN and DEVICE lines.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { freePort, repoRoot } from '@simrs/platform/testing';
import { authorizeWithFetch, Browserless, startOAuthWorld } from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';

const ADMIN = 'admin@rs-demo.test';
const DOCTOR = 'dokter@rs-demo.test';
let world: OAuthWorld;

before(async () => {
  world = await startOAuthWorld('oauth_quickstart', [
    { email: ADMIN, tenant: 'rs-demo', role: 'tenant_admin' },
    { email: DOCTOR, tenant: 'rs-demo', role: 'doctor' },
  ]);
});

after(async () => {
  await world?.stop();
});

/** The shell lines of docs/oauth.md between the quickstart markers. */
function quickstartLines(): string {
  const doc = readFileSync(join(repoRoot, 'docs/oauth.md'), 'utf8');
  const section = doc.split('<!-- oauth-quickstart:start -->')[1]?.split('<!-- oauth-quickstart:end -->')[0];
  const code = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, 'docs/oauth.md has the quickstart block');
  return code;
}

test('the OAuth quickstart of docs/oauth.md, copied and pasted, goes through every step', async () => {
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
    if (line.startsWith('DEVICE ')) {
      const userCode = new URL(line.slice(7).split(' ')[0]!).searchParams.get('user_code');
      const page = await browser.fetch(`/api/auth/device?user_code=${userCode}`);
      assert.equal(page.status, 200, await page.text());
      const approved = await browser.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode } });
      assert.equal(approved.status, 200, await approved.text());
    }
  }
  const code = await new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  );
  await Promise.all(steps);
  const text = output.join('\n');
  assert.equal(code, 0, `${text}\n${stderr}`);
  assert.match(text, /^2\. registered client /m);
  assert.match(text, /^3\. tokens: Bearer/m);
  assert.match(text, /^4\. GET \/api\/v1\/pasien: 200$/m);
  assert.match(text, /^5\. refreshed: new refresh token issued$/m);
  assert.match(text, /^6\. device approved: GET \/api\/v1\/pasien: 200$/m);
  assert.match(text, /^7\. revoked: GET \/api\/v1\/pasien with the revoked grant's token: 401$/m);
  assert.match(text, /the device grant is another grant: 200$/m);
});
