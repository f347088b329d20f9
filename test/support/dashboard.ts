// The staff dashboard in Chromium against the real stack: a tenant with one user per role, the stack and
// Chromium started for a test file, synthetic patients registered through the API, sign-in helpers, and
// the page checks every dashboard test makes (axe-core, no sideways scrolling).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { repoRoot } from '@simrs/platform/testing';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { Stack } from '../../scripts/lib/stack.ts';
import { launchBrowser } from './browser.ts';
import { startTestStack } from './stack.ts';
import type { TestStack } from './stack.ts';
import { isOtpMail, otpFrom, signInWithOtp } from './users.ts';
import type { TestUser } from './users.ts';

export const TENANT = 'rs-dash';
export const USERS = {
  admin: `admin@${TENANT}.test`,
  doctor: `dokter@${TENANT}.test`,
  nurse: `perawat@${TENANT}.test`,
  clerk: `pendaftaran@${TENANT}.test`,
  auditor: `auditor@${TENANT}.test`,
} as const;
export const ROLE_OF: Record<keyof typeof USERS, string> = {
  admin: 'tenant_admin',
  doctor: 'doctor',
  nurse: 'nurse',
  clerk: 'registration_clerk',
  auditor: 'auditor',
};

/** One person per role of the tenant. */
export const STAFF: TestUser[] = (Object.keys(USERS) as (keyof typeof USERS)[]).map((k) => ({
  email: USERS[k],
  tenant: TENANT,
  role: ROLE_OF[k],
}));

export const PHONE = { width: 390, height: 844 };
export const TABLET = { width: 820, height: 1180 };

/** Builds dashboard/dist when it is missing or older than a source file (npm ci builds it too). */
export function ensureDashboardBuilt(): void {
  const dir = join(repoRoot, 'dashboard');
  const index = join(dir, 'dist/index.html');
  const newest = (path: string): number =>
    statSync(path).isDirectory() ? Math.max(0, ...readdirSync(path).map((f) => newest(join(path, f)))) : statSync(path).mtimeMs;
  // The dashboard bundles files of @simrs/contracts too: a change there needs a new build as well.
  const sources = Math.max(
    newest(join(dir, 'src')),
    newest(join(dir, 'index.html')),
    newest(join(dir, 'vite.config.ts')),
    newest(join(repoRoot, 'packages/contracts/src')),
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: dir,
    stdio: 'inherit',
  });
}

export interface DashboardWorld extends TestStack {
  browser: Browser;
}

/** The dashboard built, the whole stack (test/support/stack.ts) with `users` seeded, and Chromium. */
export async function startDashboardWorld(
  name: string,
  users: TestUser[],
  options: Parameters<typeof startTestStack>[2] = {},
): Promise<DashboardWorld> {
  ensureDashboardBuilt();
  const whole = await startTestStack(name, users, options);
  try {
    const { browser, close } = await launchBrowser();
    return {
      ...whole,
      browser,
      async stop() {
        await close();
        await whole.stop();
      },
    };
  } catch (err) {
    await whole.stop();
    throw err;
  }
}

/** A valid NIK for a birth date and sex (province 31, DKI Jakarta). */
export function nikFor(tanggalLahir: string, jenisKelamin: 'L' | 'P', serial: number): string {
  const [y, m, d] = tanggalLahir.split('-').map(Number) as [number, number, number];
  const two = (n: number) => String(n).padStart(2, '0');
  return `317401${two(d + (jenisKelamin === 'P' ? 40 : 0))}${two(m)}${two(y % 100)}${String(serial).padStart(4, '0')}`;
}

const NAMES = [
  'Siti Rahmawati',
  'Budi Santoso',
  'Dewi Lestari',
  'Agus Setiawan',
  'Siti Aminah',
  'Ahmad Fauzi',
  'Rina Wulandari',
  'Joko Susilo',
];

/** Registers `count` patients through the API as the given session. */
export async function registerPatients(stack: Stack, cookie: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const sex = i % 2 === 0 ? 'P' : 'L';
    const tanggalLahir = `19${60 + (i % 40)}-0${1 + (i % 9)}-1${i % 10}`;
    const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.create`, {
      method: 'POST',
      headers: { cookie, origin: stack.publicUrl, 'content-type': 'application/json' },
      body: JSON.stringify({
        nik: nikFor(tanggalLahir, sex, i + 1),
        nama: `${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${String.fromCharCode(65 + Math.floor(i / NAMES.length))}` : ''}`,
        tempatLahir: 'Jakarta',
        tanggalLahir,
        jenisKelamin: sex,
        alamat: `Jl. Melati No. ${i + 1}`,
        kotaKabupaten: 'Jakarta Selatan',
        provinsi: 'DKI Jakarta',
      }),
    });
    assert.equal(res.status, 200, await res.text());
  }
}

/** Signs the browser context in as `email` (OTP through the API, the cookie put in the context). */
export async function signInContext(stack: Stack, smtp: SmtpPeer, context: BrowserContext, email: string): Promise<void> {
  const { cookie } = await signInWithOtp(stack, smtp, email);
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: stack.publicUrl, httpOnly: true, sameSite: 'Lax' }]);
}

/** A desktop-sized browser context on the stack (signed in as `email` when given) and a page in it. */
export async function openContext(
  env: { browser: Browser; stack: Stack; smtp: SmtpPeer },
  email?: string,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await env.browser.newContext({
    baseURL: env.stack.publicUrl,
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    ...options,
  });
  if (email) await signInContext(env.stack, env.smtp, context, email);
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error at ${page.url()}: ${err.stack ?? err.message}`));
  return { context, page };
}

/** Signs in on the dashboard's own page with the keyboard only: e-mail, Enter, code, Enter. */
export async function signInWithKeyboard(page: Page, smtp: SmtpPeer, email: string): Promise<void> {
  await page.locator('#email').waitFor();
  await page.keyboard.press('Tab'); // whatever has focus first, the e-mail field is reached by typing into it
  await page.locator('#email').focus();
  await page.keyboard.type(email);
  const since = smtp.messages.length;
  await page.keyboard.press('Enter');
  const code = otpFrom((await smtp.waitForMail(email, since, isOtpMail)).text);
  await page.locator('#otp').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'otp', 'focus moves to the code field');
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => !url.pathname.startsWith('/masuk'));
}

const AXE = readFileSync(join(repoRoot, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is now: no serious or critical violation. */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  // Evaluated over CDP, so the page's CSP (script-src 'self') does not apply.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(o: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${label}: axe-core violations`);
}

/** axe-core at the phone and at the tablet size (the OAuth pages are often answered on a phone). */
export async function assertAccessibleOnPhoneAndTablet(page: Page, label: string): Promise<void> {
  const original = page.viewportSize();
  for (const size of [PHONE, TABLET]) {
    await page.setViewportSize(size);
    await assertAccessible(page, `${label} at ${size.width}x${size.height}`);
    await assertNoHorizontalScroll(page, `${label} at ${size.width}x${size.height}`);
  }
  if (original) await page.setViewportSize(original);
}

/** The page scrolls sideways at no viewport size it is shown at. */
export async function assertNoHorizontalScroll(page: Page, label: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(scroll <= client, `${label}: page is ${scroll}px wide in a ${client}px viewport`);
}

/** At desktop widths a table row's buttons sit side by side (the row one line high), the page no wider than the screen. */
export async function assertRowButtonsSideBySide(page: Page, row: Locator, label: string): Promise<void> {
  const original = page.viewportSize();
  for (const width of [1024, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const tops = await row.locator('button').evaluateAll((buttons) => buttons.map((b) => b.getBoundingClientRect().top));
    assert.ok(tops.length > 1 && new Set(tops).size === 1, `${label} at ${width} px: the row's buttons sit at ${tops.join(', ')}`);
    await assertNoHorizontalScroll(page, `${label} at ${width} px`);
  }
  if (original) await page.setViewportSize(original);
}

/** Every check a page gets, at the phone and tablet sizes too; screenshots when SCREENSHOTS is set. */
export async function checkPage(page: Page, label: string): Promise<void> {
  const original = page.viewportSize();
  await assertAccessible(page, label);
  for (const size of [PHONE, TABLET]) {
    await page.setViewportSize(size);
    await assertNoHorizontalScroll(page, `${label} at ${size.width}x${size.height}`);
    if (process.env.SCREENSHOTS)
      await page.screenshot({ path: join(process.env.SCREENSHOTS, `${label.replace(/\W+/g, '-')}-${size.width}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
  if (process.env.SCREENSHOTS)
    await page.screenshot({ path: join(process.env.SCREENSHOTS, `${label.replace(/\W+/g, '-')}-desktop.png`), fullPage: true });
}
