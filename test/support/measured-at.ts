// The vital-sign form's time of measurement, in the browser: a time before the visit's day is refused
// next to its field in the page's language, a time of earlier today is what the entry and its chart
// point carry, and a finished visit takes signs late only with their time and a reason.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { tabTo } from './browser.ts';

/**
 * A moment `minutesAgo` back, but not before today's start in WIB when `withinToday` (today's visit
 * takes it at any hour), as the page's datetime-local input holds it (the browser's local time) and
 * as the API answers it.
 */
async function momentAgo(page: Page, minutesAgo: number, withinToday = false): Promise<{ local: string; iso: string }> {
  return page.evaluate(
    ([ago, within]) => {
      const WIB_MS = 7 * 3_600_000;
      const todayWib = Math.floor((Date.now() + WIB_MS) / 86_400_000) * 86_400_000 - WIB_MS;
      const d = new Date(Math.max(Date.now() - ago * 60_000, within ? todayWib : -Infinity));
      d.setSeconds(0, 0);
      const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      return { local, iso: d.toISOString() };
    },
    [minutesAgo, withinToday] as const,
  );
}

const MEASURED_AT = 'input[name="measuredAt"]';
/** The error shown beside the field of `input`. */
const errorOf = (page: Page, input: string) => page.locator('.field', { has: page.locator(input) }).locator('.field-error');

async function recordPulse(page: Page, measuredAt: string, pulse: string): Promise<void> {
  await tabTo(page, MEASURED_AT);
  await page.fill(MEASURED_AT, measuredAt);
  await tabTo(page, '#vital-nadi');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(pulse);
  await page.keyboard.press('Enter');
}

/** On a visit page of today in progress, as a clinician who records vital signs. */
export async function assertMeasuredAtRecorded(page: Page): Promise<void> {
  const twoDaysAgo = await momentAgo(page, 2 * 24 * 60);
  await recordPulse(page, twoDaysAgo.local, '91');
  const error = errorOf(page, MEASURED_AT);
  await error.waitFor();
  assert.match(
    (await error.textContent()) ?? '',
    /^Kunjungan ini tanggal \d{1,2} \p{L}+ \d{4}: waktu pengukuran tidak boleh sebelum hari itu\.$/u,
  );
  assert.equal(await page.getAttribute(MEASURED_AT, 'aria-invalid'), 'true');
  assert.equal(await page.locator('#vitals-chart circle[data-key="nadi"][data-value="91"]').count(), 0, 'nothing recorded');

  const earlier = await momentAgo(page, 2, true);
  await recordPulse(page, earlier.local, '92');
  await page.locator('#vitals-status', { hasText: 'tersimpan' }).waitFor();
  const point = page.locator('#vitals-chart circle[data-key="nadi"][data-value="92"]');
  await point.waitFor();
  assert.equal(await point.getAttribute('data-time'), earlier.iso, 'the chart places the value when it was measured');
  assert.equal(await page.inputValue(MEASURED_AT), '', 'the next signs are measured now unless told otherwise');
  assert.equal(await errorOf(page, MEASURED_AT).count(), 0);
}

/** On the page of a visit finished today, as a clinician who records vital signs: a late pulse with its time and reason. */
export async function assertLateVitalRecorded(page: Page): Promise<void> {
  const REASON = 'input[name="vitals-reason"]';
  const pulses = page.locator('#visit-vitals li[data-kode="8867-4"]');
  const before = await pulses.count();
  await tabTo(page, '#vital-nadi');
  await page.keyboard.type('76');
  await page.keyboard.press('Enter');
  await errorOf(page, REASON).waitFor();
  assert.equal(await page.getAttribute(REASON, 'aria-invalid'), 'true', 'a late entry says why');
  const earlier = await momentAgo(page, 1, true);
  await tabTo(page, MEASURED_AT);
  await page.fill(MEASURED_AT, earlier.local);
  await tabTo(page, REASON);
  await page.keyboard.type('Terlewat dicatat saat pemeriksaan');
  await page.keyboard.press('Enter');
  await page.locator('#vitals-status', { hasText: 'tersimpan' }).waitFor();
  await pulses.nth(before).waitFor();
  assert.equal(await page.inputValue(REASON), '');
}
