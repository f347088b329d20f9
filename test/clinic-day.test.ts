// A clinic's day in miniature, in Chromium against the whole stack: the administrator sets up a clinic;
// the clerk registers three visits (printable queue slips) and checks a patient in, without a clinical
// query; the nurse calls the patient (the doctor's worklist, open in another browser, shows it within
// its stated refresh time), records vital signs (an implausible value refused in place, abnormal ones
// flagged) and an allergy; the doctor sees the allergy, diagnoses, writes the note and finishes; the
// clerk sees none of it, on a page or through the API; the chart's points are the API's values;
// break-the-glass asks for a reason first; the auditor sees every clinical write and the reason.
// Nurse and doctor work with the keyboard; every new page passes axe-core at phone and tablet widths.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Stack } from '../scripts/lib/stack.ts';
import { tabTo } from './support/browser.ts';
import { assertAccessibleOnPhoneAndTablet, assertRowButtonsSideBySide, openContext, USERS } from './support/dashboard.ts';
import { assertLateVitalRecorded, assertMeasuredAtRecorded } from './support/measured-at.ts';
import {
  assertClerkApiRefused,
  assertNoClinicalContent,
  auditCount,
  auditRows,
  assertChartReadable,
  assertClinicPagesOnDemand,
  assertWritesAudited,
  chartBands,
  chartPoints,
  assertVitalInputsAligned,
  childVisitInProgress,
  clinicalCalls,
  startClinicDay,
  trackCalls,
} from './support/clinic-day.ts';
import type { ClinicDay, Patient, TrackedCall, VitalEntry } from './support/clinic-day.ts';
import { callLine, callOf, visitPageCalls } from './support/visit-page.ts';

const STEP = { timeout: 180_000 };
/** Beyond the worklist's stated refresh interval: the request, and rendering, on a busy machine. */
const REFRESH_MARGIN_MS = 5_000;
let day: ClinicDay;
let stack: Stack;
let cookies: ClinicDay['cookies'];
let userIds: ClinicDay['userIds'];
let patientA: Patient;
let patientB: Patient;
let patientC: Patient;
let visitA = '';
let api: ClinicDay['api'];
let query: ClinicDay['query'];
/** Every tRPC call the browsers made, by whom, with its status: what the auditor must find. */
const dayCalls: TrackedCall[] = [];
const BTG_REASON = 'darurat: pasien tidak sadar di IGD, perlu riwayat alergi';

before(async () => {
  day = await startClinicDay();
  ({ stack, cookies, userIds, api, query } = day);
  [patientA, patientB, patientC] = day.patients;
});

after(async () => {
  await day?.stop();
});

async function contextAs(who: keyof typeof USERS) {
  const opened = await openContext(day, USERS[who]);
  trackCalls(opened.context, who, dayCalls);
  return opened;
}

describe("a clinic's day", () => {
  test("the gateway answers the clinic pages' addresses with the app; their code loads on demand", async () => {
    assertClinicPagesOnDemand();
    for (const path of ['/antrean', '/pendaftaran', `/kunjungan/${patientA.id}`, `/pasien/${patientA.id}/klinis`, '/admin/poli']) {
      const res = await fetch(`${stack.gatewayUrl}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(await res.text(), /<div id="root">/, path);
    }
  });

  test('the administrator adds a clinic, assigns the nurse and the doctor, sets the window', STEP, async () => {
    const { context, page } = await contextAs('admin');
    try {
      await page.goto('/admin/poli');
      await page.fill('input[name="clinic-kode"]', 'UMUM');
      await page.fill('input[name="clinic-nama"]', 'Poli Umum');
      await page.click('#add-clinic-submit');
      const clinic = page.locator('li[data-kode="UMUM"]');
      await clinic.waitFor();
      for (const who of ['nurse', 'doctor']) {
        await clinic.locator('input[name="assign-UMUM"]').fill(userIds[who]!);
        await clinic.getByRole('button', { name: 'Tugaskan' }).click();
        await clinic.locator(`li[data-user="${userIds[who]}"]`).waitFor();
      }
      await page.fill('input[name="relationship-days"]', '14');
      await page.click('#save-settings');
      await page.locator('#settings-status', { hasText: 'tersimpan' }).waitFor();
      const settings = await query<{ relationshipDays: number }>('pengaturan.get', cookies.admin, {});
      assert.equal(settings.data.relationshipDays, 14);
      await assertAccessibleOnPhoneAndTablet(page, 'clinics');
    } finally {
      await context.close();
    }
  });

  test('the clerk registers three visits (queue slips), checks a patient in, cancels another; no clinical query', STEP, async () => {
    const { context, page } = await contextAs('clerk');
    const calls = clinicalCalls(page);
    try {
      await page.goto(`/pasien/${patientA.id}`);
      assert.equal(await page.locator('#clinical-record').count(), 0, 'no way into the clinical record');
      await page.locator('select[name="visit-clinic"]').selectOption({ label: 'Poli Umum' });
      await page.click('#register-visit-submit');
      assert.equal((await page.locator('#slip-number').textContent())?.trim(), '1');
      await assertAccessibleOnPhoneAndTablet(page, 'queue slip');
      await page.emulateMedia({ media: 'print' });
      assert.equal(await page.locator('.site-header').isVisible(), false, 'the slip prints alone');
      assert.equal(await page.locator('#slip-number').isVisible(), true);
      await page.emulateMedia({ media: 'screen' });

      await page.goto(`/pasien/${patientB.id}`);
      await page.locator('select[name="visit-clinic"]').selectOption({ label: 'Poli Umum' });
      await page.click('#register-visit-submit');
      assert.equal((await page.locator('#slip-number').textContent())?.trim(), '2');
      await page.goto(`/pasien/${patientC.id}`);
      await page.locator('select[name="visit-clinic"]').selectOption({ label: 'Poli Umum' });
      await page.click('#register-visit-submit');
      assert.equal((await page.locator('#slip-number').textContent())?.trim(), '3');

      await page.goto('/pendaftaran');
      const rowA = page.locator('#desk-visits tr', { hasText: patientA.nama });
      await rowA.locator('button.arrive').click();
      await page.locator(`#desk-visits tr[data-status="arrived"]`, { hasText: patientA.nama }).waitFor();
      visitA = (await rowA.getAttribute('data-visit'))!;
      const rowB = page.locator('#desk-visits tr', { hasText: patientB.nama });
      await rowB.locator('button.cancel-visit').click();
      await page.fill('#cancel-reason', 'Pasien pulang sebelum dipanggil');
      await page.getByRole('dialog').getByRole('button', { name: 'Batalkan kunjungan' }).click();
      await page.locator('#desk-visits tr[data-status="cancelled"]', { hasText: patientB.nama }).waitFor();
      await assertRowButtonsSideBySide(page, page.locator('#desk-visits tr', { hasText: patientC.nama }), 'front desk');
      await assertAccessibleOnPhoneAndTablet(page, 'front desk');

      await page.goto(`/kunjungan/${visitA}`);
      await page.locator('#not-allowed').waitFor();
      assert.deepEqual(calls, [], 'a clerk issues no clinical query');
    } finally {
      await context.close();
    }
  });

  test('the nurse calls the patient and records vital signs and an allergy, by keyboard', STEP, async () => {
    const { context, page } = await contextAs('nurse');
    // The doctor's worklist, open in a browser of its own and never reloaded, sees the call.
    const doctor = await contextAs('doctor');
    try {
      await doctor.page.goto('/antrean');
      await doctor.page.locator(`.worklist-row[data-visit="${visitA}"][data-status="arrived"]`).waitFor();
      const stated = /(\d+) detik/.exec((await doctor.page.locator('p.hint').first().textContent()) ?? '');
      assert.ok(stated, 'the worklist states how often it refreshes');
      const withinMs = Number(stated[1]) * 1000 + REFRESH_MARGIN_MS;
      await doctor.page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

      await page.goto('/antrean');
      await page.locator(`.worklist-row[data-visit="${visitA}"][data-status="arrived"]`).waitFor();
      await assertAccessibleOnPhoneAndTablet(page, 'worklist (nurse)');
      await tabTo(page, 'button.call-next');
      const called = Date.now();
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/kunjungan/${visitA}`);
      await page.locator('#visit-state[data-status="in-progress"]').waitFor();
      await doctor.page
        .locator(`.worklist-row[data-visit="${visitA}"][data-status="in-progress"]`)
        .waitFor({ timeout: withinMs - (Date.now() - called) });
      const seenAfter = Date.now() - called;
      assert.ok(seenAfter <= withinMs, `the doctor's worklist showed the call after ${seenAfter} ms`);
      const since = await doctor.page.locator(`.worklist-row[data-visit="${visitA}"] .waiting`).textContent();
      assert.match(since ?? '', /^diperiksa sejak \d{2}\.\d{2}$/, 'no longer "waiting": since when the patient is seen');
      assert.equal(await doctor.page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, 'not reloaded');
      await page.locator('#allergy-banner[data-state="unknown"]', { hasText: 'belum ditanyakan' }).waitFor();

      // Each label names its unit in the page's language, as the charts do.
      const units = await page.locator('label[for^="vital-"] .unit').allTextContents();
      assert.deepEqual(units, ['(mmHg)', '(mmHg)', '(kali/menit)', '(kali/menit)', '(°C)', '(%)', '(kg)', '(cm)']);
      await tabTo(page, '#vital-sistolik');
      await page.keyboard.type('900');
      for (const [key, value] of [
        ['diastolik', '95'],
        ['nadi', '110'],
        ['napas', '18'],
        ['suhu', '37'],
        ['spo2', '98'],
        ['beratBadan', '60'],
      ])
        await tabTo(page, `#vital-${key}`).then(() => page.keyboard.type(value!));
      await page.keyboard.press('Enter');
      const error = page.locator('#vital-sistolik-error');
      await error.waitFor();
      assert.match((await error.textContent()) ?? '', /tidak masuk akal.*40.*300/);
      assert.equal(await page.getAttribute('#vital-sistolik', 'aria-invalid'), 'true');
      assert.equal(await page.locator('#visit-vitals').count(), 0, 'nothing recorded');

      await tabTo(page, '#vital-sistolik');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('165');
      assert.equal(await page.getAttribute('#vital-sistolik-flag', 'data-flag'), 'H', 'marked high while typing');
      await page.keyboard.press('Enter');
      await page.locator('#vitals-status', { hasText: 'tersimpan' }).waitFor();
      await page.locator('#visit-vitals li[data-flag="H"]').first().waitFor();
      assert.equal(await page.locator('#vital-sistolik-error').count(), 0);
      // A second heart rate, so that its chart has a line.
      await tabTo(page, '#vital-nadi');
      await page.keyboard.type('88');
      await page.keyboard.press('Enter');
      await page.locator('#visit-vitals li').nth(6).waitFor();

      await tabTo(page, 'input[name="allergy-substance"]');
      await page.keyboard.type('Penisilin');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Obat');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Tinggi');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Ruam dan sesak');
      await page.keyboard.press('Enter');
      await page.locator('#allergy-banner[data-state="some"]', { hasText: 'Penisilin' }).waitFor();
      await assertAccessibleOnPhoneAndTablet(page, 'visit (nurse)');
    } finally {
      await Promise.all([context.close(), doctor.context.close()]);
    }
  });

  test('the doctor sees the allergy, is refused finishing without a diagnosis, diagnoses, writes, finishes', STEP, async () => {
    const { context, page } = await contextAs('doctor');
    try {
      await page.goto('/antrean');
      const row = page.locator(`.worklist-row[data-visit="${visitA}"][data-status="in-progress"]`);
      await row.locator('[data-flag="allergy"]').waitFor();
      await row.locator('[data-flag="abnormal"]').waitFor();
      await assertAccessibleOnPhoneAndTablet(page, 'worklist (doctor)');
      await tabTo(page, `.worklist-row[data-visit="${visitA}"] a.patient-link`);
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/kunjungan/${visitA}`);
      await page.locator('#allergy-banner[data-state="some"]', { hasText: 'Penisilin' }).waitFor();
      // Opened afresh, the page asks exactly what the bench's visit-page load replays.
      const asked: string[] = [];
      page.on('request', (r) => {
        const call = callOf(r.url());
        if (call && r.method() === 'GET') asked.push(callLine(call));
      });
      await page.reload();
      // The parts ask together, once the need-to-know probe is answered: one of them shown, all asked.
      await page.locator('textarea[name="note-subjective"]').waitFor();
      const expected = visitPageCalls({ id: visitA, pasienId: patientA.id }).flat().map(callLine);
      assert.deepEqual([...new Set(asked)].sort(), expected.sort());

      await tabTo(page, '#finish-visit');
      await page.keyboard.press('Enter');
      await page.locator('#visit-step-status', { hasText: 'diagnosis utama' }).waitFor();

      // The diagnosis is picked by its Indonesian name, among the search's hits.
      await tabTo(page, 'input[name="diagnosis-search"]');
      await page.keyboard.type('saluran napas');
      const hit = page.locator('#code-hits button[data-code="J06.9"]', { hasText: 'Infeksi saluran napas atas akut' });
      await hit.waitFor();
      await tabTo(page, '#code-hits button[data-code="J06.9"]');
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('input[name="diagnosis-code"]').inputValue(), 'J06.9');
      await tabTo(page, '#save-diagnosis');
      await page.keyboard.press('Enter');
      await page.locator('#diagnosis-list li[data-code="J06.9"][data-rank="primary"]').waitFor();

      await tabTo(page, 'textarea[name="note-subjective"]');
      await page.keyboard.type('Batuk pilek tiga hari');
      await tabTo(page, 'textarea[name="note-plan"]');
      await page.keyboard.type('Istirahat, minum air');
      await tabTo(page, '#save-note');
      await page.keyboard.press('Enter');
      await page.locator('#note-status', { hasText: 'tersimpan' }).waitFor();
      await assertAccessibleOnPhoneAndTablet(page, 'visit (doctor)');

      await tabTo(page, '#finish-visit');
      await page.keyboard.press('Enter');
      await page.locator('#visit-state[data-status="finished"]').waitFor();
      await assertLateVitalRecorded(page);
    } finally {
      await context.close();
    }
  });

  test('the clerk sees none of it: no clinical content on any page it can reach, nor through the API', STEP, async () => {
    const { context, page } = await contextAs('clerk');
    const asked = clinicalCalls(page);
    try {
      await page.goto(`/pasien/${patientA.id}`);
      await page.locator('select[name="visit-clinic"]').waitFor();
      await assertNoClinicalContent(page, 'patient page');
      await page.goto('/pendaftaran');
      await page.locator('#desk-visits tr[data-status="finished"]', { hasText: patientA.nama }).waitFor();
      await assertNoClinicalContent(page, 'front desk');
      for (const path of [`/kunjungan/${visitA}`, `/pasien/${patientA.id}/klinis`, '/antrean']) {
        await page.goto(path);
        await page.locator('#not-allowed').waitFor();
        await assertNoClinicalContent(page, path);
      }
      assert.deepEqual(asked, [], 'a clerk issues no clinical query');
      await assertClerkApiRefused(query, api, cookies.clerk, { id: visitA, pasienId: patientA.id });
    } finally {
      await context.close();
    }
  });

  test("the chart's points are the API's values", STEP, async () => {
    const { context, page } = await contextAs('doctor');
    try {
      await page.goto(`/kunjungan/${visitA}`);
      await page.locator('#vitals-chart svg circle').first().waitFor();
      const plotted = await page.$$eval('#vitals-chart svg circle', (cs) =>
        cs.map((c) => `${c.getAttribute('data-entry')} ${c.getAttribute('data-key')} ${c.getAttribute('data-value')}`).sort(),
      );
      const expected = chartPoints((await query<VitalEntry[]>('vital.list', cookies.doctor, { pasienId: patientA.id })).data);
      assert.deepEqual(plotted, expected);
      assert.equal(plotted.filter((p) => p.includes(' nadi ')).length, 3, "the nurse's two heart rates and the doctor's late one");
      await assertChartReadable(page);
    } finally {
      await context.close();
    }
  });

  test('break-the-glass: without a treatment relationship the record asks for a reason first', STEP, async () => {
    const { context, page } = await contextAs('doctor');
    try {
      await page.goto(`/pasien/${patientB.id}/klinis`);
      await page.locator('#break-glass').waitFor();
      assert.equal(await page.locator('#patient-banner, #vitals-over-time').count(), 0, 'nothing clinical shown');
      await assertAccessibleOnPhoneAndTablet(page, 'break-the-glass');
      await tabTo(page, 'textarea[name="btg-reason"]');
      await page.keyboard.type('darurat');
      await tabTo(page, '#btg-open');
      await page.keyboard.press('Enter');
      await page.locator('#break-glass .field-error', { hasText: '10' }).waitFor();
      await tabTo(page, 'textarea[name="btg-reason"]');
      await page.keyboard.type(BTG_REASON.slice('darurat'.length));
      await tabTo(page, '#btg-open');
      await page.keyboard.press('Enter');
      await page.locator('#patient-banner').waitFor();
      await page.locator('#vitals-over-time').waitFor();
      assert.equal(await page.locator('#break-glass').count(), 0);
    } finally {
      await context.close();
    }
  });

  test('the auditor sees every clinical write and read of the day, and the break-the-glass reason', STEP, async () => {
    const { context, page } = await contextAs('auditor');
    try {
      const today = new Date().toLocaleDateString('sv');
      await page.goto(`/audit?pasien=${patientA.id}&dari=${today}&sampai=${today}`);
      const rows = await auditRows(page);
      for (const who of ['nurse', 'doctor'] as const) assertWritesAudited(rows, dayCalls, who, userIds[who]!);
      assert.ok(dayCalls.some((c) => c.who === 'doctor' && c.path === 'diagnosis.record' && c.status === 200));
      assert.equal(rows.filter((r) => r.actor === userIds.clerk && /^(klinis|btg)\./.test(r.action)).length, 0);
      const held = await auditCount(query, cookies.auditor, { pasienId: patientA.id });
      assert.equal(rows.length, held, 'every row of the day for the patient is shown');

      const grant = page.locator(`#btg-accesses tr[data-pasien="${patientB.id}"][data-user="${userIds.doctor}"]`);
      assert.equal((await grant.locator('.btg-reason').textContent())?.trim(), BTG_REASON);
      await page.goto(`/audit?pasien=${patientB.id}`);
      await page.locator('tr[data-action="btg.open"]', { hasText: BTG_REASON }).waitFor();
      await page.locator(`tr[data-break-glass="true"][data-actor="${userIds.doctor}"]`).first().waitFor();
      await assertAccessibleOnPhoneAndTablet(page, 'audit log (auditor)');
    } finally {
      await context.close();
    }
  });

  test("a child's values are judged by its age's ranges, in the chart and typing; earlier signs are placed then", STEP, async () => {
    const child = await childVisitInProgress(day);
    // The doctor's session of the morning: signing in once more would meet the per-address code limit.
    const { context, page } = await openContext(day);
    const [name, value] = cookies.doctor.split('=') as [string, string];
    await context.addCookies([{ name, value, url: stack.publicUrl, httpOnly: true, sameSite: 'Lax' }]);
    try {
      await page.goto(`/kunjungan/${child.visit}`);
      const pulse = page.locator('#vitals-chart circle[data-key="nadi"][data-value="110"]');
      await pulse.waitFor();
      assert.equal(await pulse.getAttribute('class'), null, "a preschooler's 110 is not out of range");
      assert.equal(await page.locator('#vitals-chart circle.out-of-range').count(), 0);
      const steps = "the band steps from a toddler's range to a preschooler's at three";
      assert.deepEqual(await chartBands(page, 'nadi'), ['98-140', '80-120'], steps);
      await assertVitalInputsAligned(page);
      await tabTo(page, '#vital-nadi');
      await page.keyboard.type('110');
      assert.equal(await page.locator('#vital-nadi-flag').count(), 0, 'not marked while typing');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('200');
      assert.equal(await page.getAttribute('#vital-nadi-flag', 'data-flag'), 'HH');
      await assertMeasuredAtRecorded(page);
    } finally {
      await context.close();
    }
  });
});
