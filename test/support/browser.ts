// Debian's Chromium driven by playwright-core (no browser download), with a
// WebAuthn virtual authenticator over CDP for passkey tests, and keyboard reach.
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// playwright adds --headless itself.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium with a fresh temporary profile (playwright makes one per launch and removes it). */
export async function launchBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  return { browser, close: () => browser.close() };
}

/**
 * Waits until the page is at `url` (a glob, as page.waitForURL takes). A navigation aborted on the way,
 * as when the next one starts before it commits, rejects waitForURL whatever its target; the wait goes
 * on past such aborts, and the page must still arrive.
 */
export async function arriveAt(page: Page, url: string, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await page.waitForURL(url);
    } catch (err) {
      if (attempt >= attempts || !/ERR_ABORTED/.test((err as Error).message)) throw err;
    }
  }
}

/** Adds a platform authenticator (ctap2, internal, resident keys, user verification) to the page. */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<{ credentials(): Promise<unknown[]> }> {
  const cdp = await context.newCDPSession(page);
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
  return {
    async credentials() {
      return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    },
  };
}

/** Presses Tab until the element matching `selector` has focus: it is reachable by keyboard. */
export async function tabTo(page: Page, selector: string, max = 120): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} not reached with Tab`);
}
