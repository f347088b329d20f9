// The playground and CORS in a real browser: a page on an allow-listed origin lists patients with the
// signed-in user's cookie; the same page on another origin gets no CORS headers and no data, although
// the browser sends the cookie (same site) — the gateway's origin rule and CORS both stand in the way.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { extname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { freePort, repoRoot, testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { launchBrowser } from './support/browser.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { Browserless, issueRegistrationToken, registerClient, tokensFor } from './support/oauth.ts';
import { seedUsers, signInWithOtp } from './support/users.ts';

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** Serves the playground's static files from an origin of its own, like a separate dashboard would. */
async function servePlayground(port: number): Promise<Server> {
  const dir = join(repoRoot, 'gateway/public/playground');
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').split('?')[0]!.replace(/^\/playground\/?/, '') || 'index.html';
    if (name.includes('..')) return void res.writeHead(400).end();
    readFile(join(dir, name)).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[extname(name)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let allowed: string;
let other: string;
const servers: Server[] = [];

before(async () => {
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  const [allowedPort, otherPort] = await Promise.all([freePort(), freePort()]);
  allowed = `http://localhost:${allowedPort}`;
  other = `http://localhost:${otherPort}`;
  servers.push(await servePlayground(allowedPort), await servePlayground(otherPort));
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_playground_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    corsAllowedOrigins: [allowed],
  });
  await seedUsers(stack, [{ email: 'dokter@rs-play.test', tenant: 'rs-play', role: 'doctor' }]);
  // Some patients of the tenant, created through the API by an admin of it.
  const { cookie } = await signInWithOtp(stack, smtp, 'admin@rs-play.test');
  const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.create`, {
    method: 'POST',
    headers: { cookie, origin: stack.publicUrl, 'content-type': 'application/json' },
    body: JSON.stringify({
      nik: '3174015506900003',
      nama: 'Siti Rahmawati',
      tempatLahir: 'Jakarta',
      tanggalLahir: '1990-06-15',
      jenisKelamin: 'P',
      alamat: 'Jl. Melati No. 5',
      kotaKabupaten: 'Jakarta Selatan',
      provinsi: 'DKI Jakarta',
    }),
  });
  assert.equal(res.status, 200, await res.text());
});

after(async () => {
  await stack?.stop();
  for (const s of servers) await new Promise((r) => s.close(r));
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

async function sendFromPlayground(page: Page, url: string, bearer?: string): Promise<{ status: string; response: string }> {
  await page.goto(url);
  await page.locator('html[data-ready="true"]').waitFor();
  await page.selectOption('#procedure', 'pasien.list');
  if (bearer) {
    await page.check('#auth-bearer');
    await page.fill('#bearer-token', bearer);
  } else {
    await page.check('#auth-cookie');
  }
  await page.fill('#input', '{"limit": 5}');
  await page.click('#send');
  await page.locator('#status', { hasNotText: /sending|not sent/ }).waitFor();
  return { status: (await page.textContent('#status')) ?? '', response: (await page.textContent('#response')) ?? '' };
}

describe('playground and CORS in Chromium', () => {
  test('allow-listed origin: the signed-in user lists patients; another origin gets nothing', async () => {
    const { browser, close } = await launchBrowser();
    try {
      const context = await browser.newContext();
      const { cookie } = await signInWithOtp(stack, smtp, 'dokter@rs-play.test');
      const [name, value] = cookie.split('=') as [string, string];
      await context.addCookies([{ name, value, domain: 'localhost', path: '/', httpOnly: true, sameSite: 'Lax' }]);
      const page = await context.newPage();
      const api = stack.publicUrl;

      const ok = await sendFromPlayground(page, `${allowed}/playground/?api=${encodeURIComponent(api)}`);
      assert.match(ok.status, /^200/);
      assert.match(ok.response, /Siti Rahmawati/);

      const refused = await sendFromPlayground(page, `${other}/playground/?api=${encodeURIComponent(api)}`);
      assert.match(refused.status, /network error/, 'the browser refuses the response: no CORS headers');
      assert.doesNotMatch(refused.response, /Siti/);
      // What the gateway answered that other origin, read outside the browser: no CORS headers, no data.
      const direct = await fetch(`${stack.gatewayUrl}/trpc/pasien.list`, { headers: { cookie, origin: other } });
      assert.equal(direct.status, 401);
      assert.equal(direct.headers.get('access-control-allow-origin'), null);

      const same = await sendFromPlayground(page, `${api}/playground/`);
      assert.match(same.status, /^200/, 'served by the gateway itself, same-origin');
      assert.match(same.response, /Siti Rahmawati/);
    } finally {
      await close();
    }
  });

  test("allow-listed origin: an integration's bearer token works from the browser; another origin gets nothing", async () => {
    const registered = await registerClient(stack, await issueRegistrationToken(stack, 'admin@rs-play.test'), {
      client_name: 'Dashboard',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const tokens = await tokensFor(stack, smtp, registered, new Browserless(stack), 'dokter@rs-play.test', 'openid simrs:read');
    const { browser, close } = await launchBrowser();
    try {
      // No cookie in this browser at all: the bearer token is the only credential.
      const page = await (await browser.newContext()).newPage();
      const api = encodeURIComponent(stack.publicUrl);
      const ok = await sendFromPlayground(page, `${allowed}/playground/?api=${api}`, tokens.access_token);
      assert.match(ok.status, /^200/);
      assert.match(ok.response, /Siti Rahmawati/);
      const refused = await sendFromPlayground(page, `${other}/playground/?api=${api}`, tokens.access_token);
      assert.match(refused.status, /network error/, 'preflight refused: no CORS headers for that origin');
      assert.doesNotMatch(refused.response, /Siti/);
    } finally {
      await close();
    }
  });
});
