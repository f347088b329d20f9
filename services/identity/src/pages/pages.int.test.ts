// identity's own pages in Chromium (playwright-core, Debian's chromium, a CDP virtual authenticator):
// sign in with an e-mail code, add a passkey, sign out, sign in with the passkey through the seed's
// two endpoints, rename and delete it. identity is its own public URL here (no gateway).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { waitFor } from '@simrs/platform/testing';
import { otpFrom, startFixture } from '../testing/index.ts';
import type { Fixture } from '../testing/index.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('pages in Chromium', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, () => {
  let f: Fixture;
  let browser: Browser;
  before(async () => {
    f = await startFixture('pages', {}, { selfPublicUrl: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await f?.stop();
  });

  async function withAuthenticator(page: Page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
  }

  test('e-mail code, then a passkey: register, sign out, sign in, rename, delete', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const authenticator = await withAuthenticator(page);
    const email = 'dokter@rs-demo.test';

    await page.goto(`${f.publicUrl}/auth/sign-in`);
    await page.fill('#email', email);
    const since = f.smtp.messages.length;
    await page.click('#send-otp');
    const otp = otpFrom(await f.smtp.waitForMail(email, since));
    await page.fill('#otp', otp);
    await Promise.all([page.waitForURL('**/auth/account'), page.click('#verify-otp')]);
    assert.equal(await page.textContent('#user-email'), email);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'simrs.session_token');
    assert.ok(session?.httpOnly, 'HttpOnly session cookie');
    assert.equal(session?.sameSite, 'Lax');

    await page.fill('#passkey-name', 'Laptop kerja');
    await page.click('#register-passkey');
    await page.waitForSelector('#passkey-list li[data-passkey-id]');
    assert.equal(await page.textContent('#passkey-list .passkey-name'), 'Laptop kerja');
    assert.equal((await authenticator.credentials()).length, 1);

    // The page navigates away at once, so the answer is read on its way through.
    let body: { session?: { token?: string }; user?: { email?: string } } = {};
    await page.route('**/api/auth/passkey/verify-authentication', async (route) => {
      const response = await route.fetch();
      body = await response.json();
      await route.fulfill({ response });
    });
    await Promise.all([page.waitForURL('**/auth/sign-in'), page.click('#sign-out')]);
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'simrs.session_token'),
      undefined,
    );

    // Conditional UI (passkeys in the e-mail field's autofill) may complete with the virtual
    // authenticator before the click lands; either path goes through verify-authentication.
    // Both may even run, one navigation aborting the other: wait for the account page however it came.
    await page.click('#passkey-sign-in', { timeout: 10_000 }).catch(() => {});
    await waitFor('the account page', async () => page.url().endsWith('/auth/account') && (await page.locator('#signed-in').count()) > 0);
    assert.ok(body.session && body.user, 'verify-authentication answers {session, user}');
    assert.equal(body.user?.email, email);
    assert.equal(body.session?.token, undefined);

    await page.waitForSelector('#passkey-list li[data-passkey-id]');
    await page.fill('#passkey-list input.passkey-rename', 'Laptop baru');
    await page.click('#passkey-list button.rename-passkey');
    await page.waitForFunction(() => document.querySelector('#passkey-list .passkey-name')?.textContent === 'Laptop baru');
    await page.click('#passkey-list button.delete-passkey');
    await page.waitForSelector('#passkey-list li.empty');
    await context.close();
  });

  test('the sign-in page explains a used or expired link', async () => {
    const page = await browser.newPage();
    await page.goto(`${f.publicUrl}/auth/sign-in?error=INVALID_TOKEN`);
    assert.match((await page.textContent('#status')) ?? '', /expired or was used/);
    const res = await page.goto(`${f.publicUrl}/auth/account`);
    assert.ok(res?.url().endsWith('/auth/sign-in'), 'signed out: the account page sends you to sign in');
    await page.close();
  });

  test('user verification is required: a passkey whose authenticator did not verify the user is refused', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await withAuthenticator(page);
    const email = 'perawat@rs-demo.test';
    await page.goto(`${f.publicUrl}/auth/sign-in`);
    await page.fill('#email', email);
    const since = f.smtp.messages.length;
    await page.click('#send-otp');
    await page.fill('#otp', otpFrom(await f.smtp.waitForMail(email, since)));
    await Promise.all([page.waitForURL('**/auth/account'), page.click('#verify-otp')]);

    const options = await page.evaluate(async () => (await fetch('/api/auth/passkey/generate-register-options')).json());
    assert.equal(options.authenticatorSelection.userVerification, 'required');

    // The authenticator's answer, with its UV flag cleared on the way (a "none" attestation signs
    // nothing at registration, so only the server's check can catch it).
    let status = 0;
    await page.route('**/api/auth/passkey/verify-registration', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}');
      const attestation = Buffer.from(body.response.response.attestationObject, 'base64url');
      const at = attestation.indexOf(Buffer.from('authData'));
      const header = attestation[at + 8]!;
      const start = at + 8 + (header === 0x58 ? 2 : header === 0x59 ? 3 : 1);
      attestation[start + 32] = attestation[start + 32]! & ~0x04;
      body.response.response.attestationObject = attestation.toString('base64url');
      if (body.response.response.authenticatorData) {
        const data = Buffer.from(body.response.response.authenticatorData, 'base64url');
        data[32] = data[32]! & ~0x04;
        body.response.response.authenticatorData = data.toString('base64url');
      }
      const response = await route.fetch({ postData: JSON.stringify(body) });
      status = response.status();
      await route.fulfill({ response });
    });
    await page.click('#register-passkey');
    await waitFor('the verify-registration answer', async () => status > 0);
    assert.equal(status, 400);
    const listed = await page.evaluate(async () => (await fetch('/api/auth/passkey/list-user-passkeys')).json());
    assert.deepEqual(listed, []);
    await context.close();
  });
});
