// The MCP quickstart of the README runs as written: the lines between its markers go to bash unchanged,
// against a real stack with a clinic day registered; the test plays the doctor at the browser (sign-in,
// consent) when the script prints its OPEN line.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seedClinicDay } from './support/mcp.ts';
import { Browserless, startOAuthWorld } from './support/oauth.ts';
import type { OAuthWorld } from './support/oauth.ts';
import { quickstartLines, runQuickstart } from './support/quickstart.ts';

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

test("the README's MCP quickstart, copied and pasted, ends with today's worklist", async () => {
  const { code, text, stderr } = await runQuickstart(world, quickstartLines('README.md', 'mcp-quickstart'), DOCTOR);
  assert.equal(code, 0, `${text}\n${stderr}`);
  assert.match(text, /^1\. registered client /m);
  assert.match(text, /^2\. authorized for http:\/\/localhost:\d+\/api\/v1\/mcp \(scope: simrs:read\)$/m);
  assert.match(text, /^3\. tools: .*clinic_worklist/m);
  assert.match(text, /^4\. today's worklist: 1 visit\(s\)$/m);
  assert.match(text, /^ {3}Poli Umum #1 Siti Rahmawati \(arrived\)$/m);
});
