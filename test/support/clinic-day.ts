// What test/clinic-day.test.ts shares between its steps: the morning before the day (the stack, everyone
// signed in, three patients, the day's ICD-10 codes), tRPC through the gateway with a session cookie, a
// record of every tRPC call the browsers made (with the answer's status), the checks that a
// registration clerk sees no clinical content on a page or through the API, and the audit page's rows
// against the API's, and a child's visit for the ranges of its age.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '@simrs/platform/testing';
import { firstLoad } from '../../dashboard/first-load.ts';
import type { Stack } from '../../scripts/lib/stack.ts';
import { nikFor, registerPatients, STAFF, startDashboardWorld, USERS } from './dashboard.ts';
import type { DashboardWorld } from './dashboard.ts';
import { signInWithOtp } from './users.ts';

export function apiOf(stack: Stack) {
  async function api<T>(path: string, cookie: string, body?: unknown): Promise<{ status: number; data: T }> {
    const res = await fetch(`${stack.gatewayUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { cookie, origin: stack.publicUrl, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { result?: { data: T } } & Record<string, unknown>;
    return { status: res.status, data: (json.result?.data ?? json) as T };
  }
  const query = <T>(proc: string, cookie: string, input: unknown) =>
    api<T>(`/trpc/${proc}?input=${encodeURIComponent(JSON.stringify(input))}`, cookie);
  return { api, query };
}

type Query = ReturnType<typeof apiOf>['query'];

const WHO = ['admin', 'nurse', 'doctor', 'clerk', 'auditor'] as const;

export interface Patient {
  id: string;
  nama: string;
}

export interface ClinicDay extends DashboardWorld, ReturnType<typeof apiOf> {
  /** Each person's session, signed in through the API, and user id. */
  cookies: Record<(typeof WHO)[number], string>;
  userIds: Record<string, string>;
  /** The day's patients A, B and C. */
  patients: [Patient, Patient, Patient];
}

/** The morning before the day: the stack with one person per role, each signed in, three patients, the ICD-10 codes. */
export async function startClinicDay(): Promise<ClinicDay> {
  const world = await startDashboardWorld('clinic', STAFF, { readyTimeoutMs: 120_000 });
  try {
    const { api, query } = apiOf(world.stack);
    const cookies = Object.fromEntries(WHO.map((w) => [w, ''])) as ClinicDay['cookies'];
    const userIds: Record<string, string> = {};
    for (const who of WHO) {
      cookies[who] = (await signInWithOtp(world.stack, world.smtp, USERS[who])).cookie;
      const session = await api<{ user: { id: string } }>('/api/auth/get-session', cookies[who]);
      userIds[who] = session.data.user.id;
    }
    await registerPatients(world.stack, cookies.admin, 3);
    const list = await query<{ items: Patient[] }>('pasien.list', cookies.admin, { limit: 10 });
    const named = (nama: string) => list.data.items.find((p) => p.nama === nama)!;
    await loadIcdCodes(world.stack.databases.records);
    return { ...world, api, query, cookies, userIds, patients: [named('Siti Rahmawati'), named('Budi Santoso'), named('Dewi Lestari')] };
  } catch (err) {
    await world.stop();
    throw err;
  }
}

/** The ICD-10 list is loaded by the platform, not by a hospital: two codes are enough for the day. */
export async function loadIcdCodes(recordsDatabase: string): Promise<void> {
  const db = new pg.Client({ connectionString: recordsDatabase });
  await db.connect();
  try {
    await db.query(
      `insert into records.kode (system, code, display_en, display_id) values
         ('icd-10', 'J06.9', 'Acute upper respiratory infection', 'Infeksi saluran napas atas akut'),
         ('icd-10', 'I10', 'Essential hypertension', 'Hipertensi esensial') on conflict do nothing`,
    );
  } finally {
    await db.end();
  }
}

export const CLINICAL_PROCEDURE = /^(vital|diagnosis|alergi|catatan|klinis|btg|kode)\./;

/** Every clinical procedure a page calls (a clerk's pages must call none). */
export function clinicalCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (r) => {
    const m = /\/trpc\/([\w.]+)/.exec(r.url());
    if (m && CLINICAL_PROCEDURE.test(m[1]!)) calls.push(m[1]!);
  });
  return calls;
}

export interface TrackedCall {
  who: string;
  path: string;
  method: string;
  status: number;
}

/** Records every tRPC call the context's pages make, as `who`, with the answer's status. */
export function trackCalls(context: BrowserContext, who: string, into: TrackedCall[]): void {
  context.on('response', (r) => {
    const m = /\/trpc\/([\w.]+)/.exec(r.url());
    if (m) into.push({ who, path: m[1]!, method: r.request().method(), status: r.status() });
  });
}

/** What the day recorded that a clerk must never see (the patient's allergy, vitals, diagnosis, note). */
export const CLINICAL_WORDS = ['Penisilin', 'Ruam dan sesak', 'J06.9', 'Infeksi saluran', 'Batuk pilek', 'Istirahat, minum air', 'mmHg'];

/** The page shows none of the clinical words and none of the clinical parts. */
export async function assertNoClinicalContent(page: Page, label: string): Promise<void> {
  const text = (await page.locator('body').innerText()) ?? '';
  for (const word of CLINICAL_WORDS) assert.ok(!text.includes(word), `${label} shows "${word}"`);
  const parts = '#patient-banner, #allergy-banner, #vitals-over-time, #vitals-chart, #diagnoses, #visit-vitals, #clinical-record';
  assert.equal(await page.locator(parts).count(), 0, `${label} shows a clinical part`);
}

/** Every clinical read (and break-the-glass) is refused with the clerk's cookie; what the clerk may read carries none of it. */
export async function assertClerkApiRefused(
  query: Query,
  api: ReturnType<typeof apiOf>['api'],
  cookie: string,
  visit: { id: string; pasienId: string },
): Promise<void> {
  const refused: [string, unknown][] = [
    ['vital.list', { pasienId: visit.pasienId }],
    ['vital.list', { kunjunganId: visit.id }],
    ['alergi.list', { pasienId: visit.pasienId }],
    ['diagnosis.list', { kunjunganId: visit.id }],
    ['catatan.list', { kunjunganId: visit.id }],
    ['klinis.riwayat', { pasienId: visit.pasienId }],
    ['btg.list', {}],
  ];
  for (const [proc, input] of refused) assert.equal((await query(proc, cookie, input)).status, 403, `${proc} for a clerk`);
  const open = await api('/trpc/btg.open', cookie, { pasienId: visit.pasienId, reason: 'ingin tahu saja, bukan darurat' });
  assert.equal(open.status, 403, 'btg.open for a clerk');
  for (const [proc, input] of [
    ['kunjungan.get', { id: visit.id }],
    ['kunjungan.list', { limit: 200 }],
    ['pasien.get', { id: visit.pasienId }],
  ] as const) {
    const res = await query(proc, cookie, input);
    assert.equal(res.status, 200, `${proc} for a clerk`);
    const body = JSON.stringify(res.data);
    for (const word of CLINICAL_WORDS) assert.ok(!body.includes(word), `${proc} gives a clerk "${word}"`);
  }
}

/** Every row the audit page shows (following "show more" to the end): action and actor; all of it in words. */
export async function auditRows(page: Page): Promise<{ action: string; actor: string }[]> {
  await page.locator('table.audit-table tr[data-action]').first().waitFor();
  while (await page.locator('#audit-more').isVisible()) {
    const before = await page.locator('tr[data-action]').count();
    await page.click('#audit-more');
    await page.waitForFunction((n) => document.querySelectorAll('tr[data-action]').length > n, before);
  }
  // Every action and every detail in words: a code-like name (`poliId`, `klinis.read`) is a string left untranslated.
  const shown = await page.$$eval('tr[data-action] td:nth-child(3), tr[data-action] td:last-child', (tds) =>
    tds.map((td) => td.textContent ?? ''),
  );
  assert.deepEqual(
    shown.filter((text) => /\b[a-z]+([A-Z]|\.[a-z])\w*/.test(text)),
    [],
    'untranslated names on the audit page',
  );
  return page.$$eval('tr[data-action]', (trs) => trs.map((tr) => ({ action: tr.dataset.action!, actor: tr.dataset.actor! })));
}

/** How many audit rows the API holds for the filter (every page of it), as `cookie`'s person. */
export async function auditCount(query: Query, cookie: string, filter: Record<string, string>): Promise<number> {
  let count = 0;
  let cursor: string | null | undefined;
  do {
    const page = await query<{ items: unknown[]; nextCursor: string | null }>('audit.list', cookie, {
      ...filter,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    count += page.data.items.length;
    cursor = page.data.nextCursor;
  } while (cursor);
  return count;
}

export interface VitalEntry {
  id: string;
  kode: string;
  isi: Record<string, number>;
}

/** The points the vitals chart must plot for vital.list's entries: `<entry> <key> <value>`, sorted. */
export function chartPoints(entries: VitalEntry[]): string[] {
  const charted: Record<string, string> = { '8867-4': 'nadi', '8310-5': 'suhu', '29463-7': 'beratBadan' };
  return entries
    .flatMap((e) =>
      e.kode === '85354-9'
        ? [`${e.id} sistolik ${e.isi.sistolik}`, `${e.id} diastolik ${e.isi.diastolik}`]
        : charted[e.kode]
          ? [`${e.id} ${charted[e.kode]} ${e.isi.value}`]
          : [],
    )
    .sort();
}

/** The audit actions of clinical writes, by the procedure's verb. */
const WRITES: Record<string, string> = {
  record: 'klinis.record',
  amend: 'klinis.amend',
  start: 'kunjungan.start',
  finish: 'kunjungan.finish',
};

/**
 * Each clinical write `who`'s browsers made (answered 200) is one audit row of theirs, none missing,
 * none extra; and their clinical reads are there too.
 */
export function assertWritesAudited(rows: { action: string; actor: string }[], calls: TrackedCall[], who: string, userId: string): void {
  for (const [verb, action] of Object.entries(WRITES)) {
    const made = calls.filter((c) => c.who === who && c.method === 'POST' && c.status === 200 && c.path.endsWith(`.${verb}`));
    const listed = rows.filter((r) => r.actor === userId && r.action === action);
    assert.equal(listed.length, made.length, `${who}'s ${action} rows`);
  }
  assert.ok(
    rows.some((r) => r.actor === userId && r.action === 'klinis.read'),
    `${who}'s clinical reads`,
  );
}

/**
 * The blood-pressure chart as a person reads it at tablet width: named and described for screen
 * readers, wide enough, the reference ranges drawn, red exactly where a value is outside them (the
 * day's 165/95 both are), a legend for the two lines.
 */
export async function assertChartReadable(page: Page): Promise<void> {
  const bp = page.locator('figure[data-panel="bp"]');
  assert.ok(await bp.locator('svg title').textContent());
  assert.match((await bp.locator('svg desc').textContent()) ?? '', /95.*165/);
  await page.setViewportSize({ width: 820, height: 1180 });
  const box = await bp.locator('svg').boundingBox();
  assert.ok(box && box.width >= 250, `the chart is readable at tablet width (${box?.width}px)`);
  assert.equal(await bp.locator('rect.normal').count(), 2, 'both reference ranges drawn');
  const red = await bp
    .locator('circle.out-of-range')
    .evaluateAll((cs) => cs.map((c) => `${c.getAttribute('data-key')} ${c.getAttribute('data-value')}`));
  assert.deepEqual(red.sort(), ['diastolik 95', 'sistolik 165']);
  assert.deepEqual(await bp.locator('.chart-legend .key').allTextContents(), [
    'Sistolik',
    'Diastolik',
    'Rentang normal',
    'Di luar rentang normal',
  ]);
}

/** The clinic's pages and the audit log: each a chunk of its own in the build, none in the first load. */
export function assertClinicPagesOnDemand(): void {
  const pages = ['Worklist', 'VisitPage', 'ClinicalRecord', 'FrontDesk', 'AdminClinics', 'AuditLog'];
  const chunks = readdirSync(join(repoRoot, 'dashboard/dist/assets')).filter((f) =>
    pages.some((p) => f.startsWith(`${p}-`) && f.endsWith('.js')),
  );
  assert.equal(chunks.length, pages.length, `each page a chunk of its own: ${chunks.join(', ')}`);
  const first = firstLoad().files.map((f) => f.path);
  assert.deepEqual(
    first.filter((path) => chunks.some((c) => path.endsWith(`/${c}`))),
    [],
    'none in the first load',
  );
}

/** Moves a visit to an earlier day, as a migration of the hospital's earlier records would have dated it. */
async function dateVisit(recordsDatabase: string, visit: string, day: string): Promise<void> {
  const db = new pg.Client({ connectionString: recordsDatabase });
  await db.connect();
  try {
    await db.query('update records.kunjungan set tanggal = $2::date where id = $1::uuid', [visit, day]);
  } finally {
    await db.end();
  }
}

/**
 * A four-year-old's visit in progress at the day's first clinic, its pulse of 110 (a preschooler's
 * normal, an adult's high) and blood pressure 100/60 recorded by the nurse, all through the API; and an
 * earlier visit, brought over from the hospital's earlier records, with a pulse of 120 taken at two and a
 * half (a toddler's normal).
 */
export async function childVisitInProgress(day: ClinicDay): Promise<{ visit: string; pasienId: string }> {
  const { api, query, cookies } = day;
  const tanggalLahir = new Date(Date.now() - 4.3 * 365.25 * 86_400_000).toISOString().slice(0, 10);
  const patient = {
    nik: nikFor(tanggalLahir, 'L', 77),
    nama: 'Raka Pratama',
    tempatLahir: 'Jakarta',
    tanggalLahir,
    jenisKelamin: 'L',
    alamat: 'Jl. Melati No. 77',
    kotaKabupaten: 'Jakarta Selatan',
    provinsi: 'DKI Jakarta',
  };
  const call = async <T>(proc: string, who: keyof ClinicDay['cookies'], input: unknown) => {
    const res = await api<T>(`/trpc/${proc}`, cookies[who], input);
    assert.equal(res.status, 200, `${proc}: ${JSON.stringify(res.data)}`);
    return res.data;
  };
  const pasienId = (await call<{ id: string }>('pasien.create', 'admin', patient)).id;
  const [poli] = (await query<{ id: string }[]>('poli.list', cookies.admin, {})).data;
  const startVisit = async () => {
    const visit = (await call<{ id: string }>('kunjungan.register', 'clerk', { pasienId, poliId: poli!.id })).id;
    await call('kunjungan.arrive', 'clerk', { id: visit });
    await call('kunjungan.start', 'doctor', { id: visit });
    return visit;
  };
  const earlier = await startVisit();
  const atTwoAndAHalf = new Date(Date.parse(tanggalLahir) + 2.5 * 365.25 * 86_400_000);
  // The visit's day in WIB, where visits are dated.
  await dateVisit(day.stack.databases.records, earlier, new Date(atTwoAndAHalf.getTime() + 7 * 3_600_000).toISOString().slice(0, 10));
  await call('vital.record', 'nurse', {
    kunjunganId: earlier,
    waktu: atTwoAndAHalf.toISOString(),
    measurements: [{ key: 'nadi', value: 120, unit: '/min' }],
  });
  const visit = await startVisit();
  const measurements = [
    { key: 'sistolik', value: 100, unit: 'mm[Hg]' },
    { key: 'diastolik', value: 60, unit: 'mm[Hg]' },
    { key: 'nadi', value: 110, unit: '/min' },
  ];
  await call('vital.record', 'nurse', { kunjunganId: visit, measurements });
  return { visit, pasienId };
}

/** The vital-sign form's inputs line up row by row, whether or not a label wraps (one top per row of the grid). */
export async function assertVitalInputsAligned(page: Page): Promise<void> {
  const labels = await page.locator('.vitals-grid label').evaluateAll((all) => all.map((l) => l.getBoundingClientRect().height));
  assert.ok(Math.max(...labels) > Math.min(...labels), 'some label wraps at this width (else the check proves nothing)');
  const boxes = await page.locator('.vitals-grid input').evaluateAll((inputs) => inputs.map((i) => i.getBoundingClientRect()));
  const columns = new Set(boxes.map((b) => Math.round(b.left))).size;
  const tops = [...new Set(boxes.map((b) => Math.round(b.top)))];
  assert.equal(tops.length, Math.ceil(boxes.length / columns), `inputs at tops ${tops.join(', ')} in ${columns} columns`);
}

/** The reference bands a chart draws for a sign, left to right, as their normal ranges ("lo-hi"). */
export async function chartBands(page: Page, key: string): Promise<string[]> {
  const bands = await page
    .locator(`#vitals-chart rect.normal-${key}`)
    .evaluateAll((rects) => rects.map((r) => ({ x: Number(r.getAttribute('x')), normal: r.getAttribute('data-normal') ?? '' })));
  return bands.sort((a, b) => a.x - b.x).map((b) => b.normal);
}
