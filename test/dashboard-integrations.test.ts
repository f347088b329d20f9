// The dashboard's integrations and devices in Chromium, against the whole stack through the gateway:
// an administrator revokes an OAuth client (its bearer token refused by the gateway within 1 s),
// registers a SMART backend service with its public keys (whose assertion, signed by Authlib, then
// gets a token that reads FHIR), and a device waiting for approval is listed for the administrator and
// approved by a nurse who sees the application's name. (test/dashboard.test.ts, dashboard-patients.test.ts
// and dashboard-admin.test.ts have every other flow.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { authlib } from './support/authlib.ts';
import type { BackendKeys } from './support/authlib.ts';
import { launchBrowser } from './support/browser.ts';
import { checkPage, ensureDashboardBuilt, openContext, ROLE_OF, TENANT, USERS } from './support/dashboard.ts';
import { apiQuery, Browserless, DEVICE_CODE_GRANT, issueRegistrationToken, registerClient, tokensFor, within } from './support/oauth.ts';
import { seedUsers } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let browser: Browser;
let closeBrowser: () => Promise<void>;

before(async () => {
  ensureDashboardBuilt();
  [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_dashint_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
  });
  await seedUsers(
    stack,
    (['admin', 'doctor', 'nurse'] as const).map((k) => ({ email: USERS[k], tenant: TENANT, role: ROLE_OF[k] })),
  );
  ({ browser, close: closeBrowser } = await launchBrowser());
});

after(async () => {
  await closeBrowser?.();
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
});

const contextAs = (email?: string) => openContext({ browser, stack, smtp }, email);

describe('integrations and devices', () => {
  test('an admin revokes an integration after a confirmation naming it; the gateway refuses its bearer token within 1 s', async () => {
    const app = await registerClient(stack, await issueRegistrationToken(stack, USERS.admin), {
      client_name: 'Aplikasi Farmasi',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const tokens = await tokensFor(stack, smtp, app, new Browserless(stack), USERS.doctor);
    assert.equal((await apiQuery(stack, tokens.access_token)).status, 200);
    const { context, page } = await contextAs(USERS.admin);
    try {
      await page.goto('/admin/integrasi');
      const row = page.locator(`#client-list .client[data-client-id="${app.clientId}"]`);
      await row.locator('.revoke-client').click();
      const dialog = page.locator('dialog[open]');
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', /Aplikasi Farmasi.*token/s);
      await checkPage(page, 'revoke-dialog');
      const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/tenant/revoke-oauth-client'));
      await dialog.locator('button[type="submit"]').click();
      assert.equal((await answered).status(), 200);
      const took = await within(1000, async () => (await apiQuery(stack, tokens.access_token)).status === 401);
      assert.ok(took >= 0, 'the access token is refused within 1 s');
      await page.locator('#integrations-status', { hasText: 'Aplikasi Farmasi dicabut' }).waitFor();
      await row.locator('.badge').waitFor();
      assert.equal(await row.locator('.revoke-client').count(), 0);
      const refresh = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: app.clientId,
          client_secret: app.clientSecret!,
        }),
      });
      assert.ok(refresh.status >= 400 && refresh.status < 500, `the refresh token is dead too (${refresh.status})`);
    } finally {
      await context.close();
    }
  });

  test('an admin registers a backend service by keyboard with its JWKS from a file; Authlib signs its assertion and the token reads FHIR within its scopes', async () => {
    const keys = await authlib<BackendKeys>('backend-keys', { alg: 'ES384' });
    const { context, page } = await contextAs(USERS.admin);
    try {
      await page.goto('/admin/integrasi');
      const form = page.locator('#backend-form');
      await form.locator('textarea[name="jwks"]').fill('bukan JSON');
      await form.locator('#scope-Patient').uncheck();
      await form.locator('#register-backend').click();
      // Each wrong input says what to fix, and nothing is sent; the first to fix takes focus.
      assert.equal(await form.locator('.field-error').count(), 3);
      await form.locator('.field-error', { hasText: 'bukan JWKS' }).waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'backend-name');
      await checkPage(page, 'backend-form-errors');

      await form.locator('[name="backend-name"]').focus();
      await page.keyboard.type('Gudang Data Dinkes');
      for (const resource of ['Patient', 'Observation']) {
        await form.locator(`#scope-${resource}`).focus();
        await page.keyboard.press('Space');
      }
      const jwksFile = { name: 'jwks.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(keys.jwks)) };
      await form.locator('input[type="file"]').setInputFiles(jwksFile);
      await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('textarea[name="jwks"]')?.value.includes('"keys"'));
      const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/oauth2/register'));
      await form.locator('#register-backend').focus();
      await page.keyboard.press('Enter');
      assert.equal((await answered).status(), 201);
      const registered = form.locator('#registered-backend');
      await registered.waitFor();
      const clientId = await registered.locator('#backend-client-id').inputValue();
      assert.deepEqual(await registered.locator('#scope-list li').evaluateAll((li) => li.map((l) => l.getAttribute('data-scope'))), [
        'system/Patient.rs',
        'system/Observation.rs',
      ]);
      assert.match((await registered.locator('#scope-list').textContent()) ?? '', /semua pasien rumah sakit ini, oleh sistem itu sendiri/);
      await checkPage(page, 'backend-registered');
      const row = page.locator(`#client-list .client[data-client-id="${clientId}"]`);
      await row.locator('text=layanan backend').waitFor();
      assert.match((await row.textContent()) ?? '', /Gudang Data Dinkes/);

      // The page names the token endpoint the assertion's aud must be; Authlib signs for it.
      const tokenEndpoint = /aud = (\S+?\/oauth2\/token)/.exec((await registered.textContent()) ?? '')?.[1];
      assert.ok(tokenEndpoint, 'the page says where to ask for tokens');
      const ask = (scope: string) =>
        authlib<{ token?: { access_token: string }; error?: string }>('backend-grant', {
          client_id: clientId,
          token_endpoint: tokenEndpoint,
          private: keys.private,
          alg: 'ES384',
          scope,
        });
      const granted = await ask('system/Patient.rs system/Observation.rs');
      assert.ok(granted.token, JSON.stringify(granted));
      const read = await fetch(`${stack.gatewayUrl}/api/v1/fhir/Patient?_count=1`, {
        headers: { authorization: `Bearer ${granted.token.access_token}`, accept: 'application/fhir+json' },
      });
      assert.equal(read.status, 200);
      assert.equal((await ask('system/Condition.rs')).error, 'invalid_scope', 'a scope the administrator did not choose is refused');
    } finally {
      await context.close();
    }
  });

  test('a device waiting for approval is listed for the admin; a nurse approves it by code, seeing the application by name', async () => {
    const device = await registerClient(stack, await issueRegistrationToken(stack, USERS.admin), {
      client_name: 'Terminal Bangsal',
      token_endpoint_auth_method: 'none',
      grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
    });
    const res = await fetch(`${stack.gatewayUrl}/api/auth/device/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: device.clientId, scope: 'openid simrs:read' }),
    });
    assert.equal(res.status, 200);
    const grant = (await res.json()) as { device_code: string; user_code: string };
    const poll = () =>
      fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: DEVICE_CODE_GRANT, device_code: grant.device_code, client_id: device.clientId }),
      });

    const admin = await contextAs(USERS.admin);
    const nurse = await contextAs(USERS.nurse);
    try {
      await admin.page.goto('/admin/perangkat');
      const waiting = admin.page.locator(`#device-requests tr[data-client-id="${device.clientId}"]`);
      await waiting.waitFor();
      const text = (await waiting.textContent()) ?? '';
      assert.match(text, /Terminal Bangsal/);
      assert.doesNotMatch(text, new RegExp(grant.user_code), 'the user code is not shown in full');
      await checkPage(admin.page, 'device-requests');

      const { page } = nurse;
      await page.goto('/perangkat');
      await page.fill('[name="user_code"]', grant.user_code);
      await page.click('#device-lookup');
      await page.locator('#device-request h2', { hasText: 'Terminal Bangsal' }).waitFor();
      await page.click('#device-approve');
      await page.locator('#device-status').waitFor();
      const token = await poll();
      assert.equal(token.status, 200);
      const { access_token } = (await token.json()) as { access_token: string };
      assert.equal((await apiQuery(stack, access_token)).status, 200);

      await admin.page.reload();
      await admin.page.locator('#no-device-requests').waitFor();
    } finally {
      await admin.context.close();
      await nurse.context.close();
    }
  });
});
