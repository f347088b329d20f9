// The OAuth quickstart of docs/oauth.md runs as written: the lines between its markers go
// to bash unchanged, against a real stack; the test plays the person at the browser (sign-in, consent,
// device approval) when the script prints its OPEN and DEVICE lines.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startOAuthWorld } from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';
import { quickstartLines, runQuickstart } from './support/quickstart.ts';

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

test('the OAuth quickstart of docs/oauth.md, copied and pasted, goes through every step', async () => {
  const { code, text, stderr } = await runQuickstart(
    world,
    quickstartLines('docs/oauth.md', 'oauth-quickstart'),
    DOCTOR,
    async (line, browser) => {
      if (!line.startsWith('DEVICE ')) return;
      const userCode = new URL(line.slice(7).split(' ')[0]!).searchParams.get('user_code');
      const page = await browser.fetch(`/api/auth/device?user_code=${userCode}`);
      assert.equal(page.status, 200, await page.text());
      const approved = await browser.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode } });
      assert.equal(approved.status, 200, await approved.text());
    },
  );
  assert.equal(code, 0, `${text}\n${stderr}`);
  assert.match(text, /^2\. registered client /m);
  assert.match(text, /^3\. tokens: Bearer/m);
  assert.match(text, /^4\. GET \/api\/v1\/pasien: 200$/m);
  assert.match(text, /^5\. refreshed: new refresh token issued$/m);
  assert.match(text, /^6\. device approved: GET \/api\/v1\/pasien: 200$/m);
  assert.match(text, /^7\. revoked: GET \/api\/v1\/pasien with the revoked grant's token: 401$/m);
  assert.match(text, /the device grant is another grant: 200$/m);
});
