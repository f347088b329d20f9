// SMART App Launch v2 standalone launch with patient context, through the whole stack: a client asking
// for `launch/patient patient/Patient.rs` gets the dashboard's patient picker (/pilih-pasien, Chromium), the
// token response names the chosen patient (`patient`), and that token reaches that patient only, also
// after a refresh. A patient of another hospital cannot be chosen: the picker lists only the user's
// hospital, and a forged id posted to the consent endpoint reaches nothing (records' row-level security).
// Every FHIR body is validated against the official R4 definitions (@medplum/core).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { PATIENT_CLAIM } from '@simrs/contracts/oauth';
import { assertValidFhir } from '@simrs/platform/testing/fhir-validation';
import { makeNik } from '../services/records/src/pasien/index.ts';
import { arriveAt, launchBrowser } from './support/browser.ts';
import { assertAccessibleOnPhoneAndTablet } from './support/dashboard.ts';
import { Browserless, codeFlow, issueRegistrationToken, navigate, registerClient, startOAuthWorld, tokensFor } from './support/oauth.ts';
import type { OAuthWorld, RegisteredClient } from './support/oauth.ts';
import { isOtpMail, otpFrom } from './support/users.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const USERS = { admin: 'admin@rs-smart.test', doctor: 'dokter@rs-smart.test', otherAdmin: 'admin@rs-seberang.test' };
const NIK = 'https://fhir.kemkes.go.id/id/nik';
const VITALS = 'patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|vital-signs';
const SCOPE = `launch/patient patient/Patient.rs ${VITALS} openid offline_access`;

let world: OAuthWorld;
let base: string;
let app: RegisteredClient;
/** FHIR ids by name: three patients of rs-smart, one of the other hospital. */
const ids: Record<string, string> = {};

let serial = 0;
function patient(nama: string): Json {
  const n = ++serial;
  const tanggalLahir = `19${70 + n}-0${n}-1${n}`;
  return {
    resourceType: 'Patient',
    identifier: [
      {
        use: 'official',
        system: NIK,
        value: makeNik({ province: '32', regency: 73, district: n, tanggalLahir, jenisKelamin: 'L', serial: n }),
      },
    ],
    name: [{ use: 'official', text: nama }],
    gender: 'male',
    birthDate: tanggalLahir,
    address: [{ use: 'home', line: [`Jl. Merdeka No. ${n}`], city: 'Kota Bandung', state: 'Jawa Barat', country: 'ID' }],
    extension: [{ url: 'https://fhir.kemkes.go.id/r4/StructureDefinition/birthPlace', valueAddress: { city: 'Bandung' } }],
  };
}

async function fhir(token: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, accept: 'application/fhir+json', 'content-type': 'application/fhir+json' },
  });
  const body = assertValidFhir((await res.json()) as Json, `${init.method ?? 'GET'} ${path}`);
  return { status: res.status, body };
}

/** A token of a tenant administrator allowed to write, to register the test's patients. */
async function writerToken(admin: string): Promise<string> {
  const writer = await registerClient(world.stack, await issueRegistrationToken(world.stack, admin, true), {
    client_name: 'Registrasi',
    redirect_uris: [world.redirectUri],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_post',
  });
  const tokens = await tokensFor(world.stack, world.smtp, writer, new Browserless(world.stack), admin, 'openid simrs:read simrs:write');
  return tokens.access_token;
}

before(async () => {
  world = await startOAuthWorld('smart_launch', [
    { email: USERS.admin, tenant: 'rs-smart', role: 'tenant_admin' },
    { email: USERS.doctor, tenant: 'rs-smart', role: 'doctor' },
    { email: USERS.otherAdmin, tenant: 'rs-seberang', role: 'tenant_admin' },
  ]);
  base = `${world.stack.gatewayUrl}/api/v1/fhir`;
  const here = await writerToken(USERS.admin);
  for (const nama of ['Launch Satu', 'Launch Dua', 'Launch Tiga']) {
    const created = await fhir(here, 'Patient', { method: 'POST', body: JSON.stringify(patient(nama)) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    ids[nama] = created.body.id as string;
  }
  const there = await fhir(await writerToken(USERS.otherAdmin), 'Patient', {
    method: 'POST',
    body: JSON.stringify(patient('Launch Seberang')),
  });
  assert.equal(there.status, 201);
  ids['Launch Seberang'] = there.body.id as string;
  // A read-only registration token: launch/patient grants nothing by itself, so it may be registered.
  app = await registerClient(world.stack, await issueRegistrationToken(world.stack, USERS.admin, false), {
    client_name: 'Aplikasi Pasien',
    redirect_uris: [world.redirectUri],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_post',
    scope: SCOPE,
  });
});

after(async () => {
  await world?.stop();
});

describe('SMART standalone launch with a patient picker', () => {
  test('discovery announces the standalone patient context', async () => {
    const res = await fetch(`${base}/.well-known/smart-configuration`);
    const smart = (await res.json()) as Json;
    for (const c of ['launch-standalone', 'context-standalone-patient', 'permission-patient']) assert.ok(smart.capabilities.includes(c), c);
    assert.ok(smart.scopes_supported.includes('launch/patient'));
  });

  test("in Chromium: the picker lists the hospital's patients, the token names the chosen one, and reaches only it, also after a refresh", async () => {
    const flow = await codeFlow(app.config, world.redirectUri, SCOPE);
    const { browser, close } = await launchBrowser();
    let callback: URL;
    try {
      const page = await (await browser.newContext({ baseURL: world.stack.publicUrl })).newPage();
      await page.goto(flow.url.toString());
      await page.waitForURL('**/masuk?**');
      const since = world.smtp.messages.length;
      await page.fill('#email', USERS.doctor);
      await page.click('#send-otp');
      await page.fill('#otp', otpFrom((await world.smtp.waitForMail(USERS.doctor, since, isOtpMail)).text));
      await page.click('#verify-otp');
      // The consent page for a launch is the patient picker (/izin sends it on to /pilih-pasien).
      await arriveAt(page, '**/pilih-pasien?**');
      assert.match(
        (await page.textContent('li[data-scope="launch/patient"]')) ?? '',
        /Bekerja dengan satu pasien yang Anda pilih di bawah/,
      );
      assert.equal(
        await page.textContent('li[data-scope="patient/Patient.rs"]'),
        'Membaca data pasien dan mencari pasien: hanya satu pasien yang dipilih untuk aplikasi ini patient/Patient.rs',
        'SMART scopes in plain words, in the page language (Indonesian by default)',
      );
      assert.equal(
        await page.textContent(`li[data-scope="${VITALS}"]`),
        `Membaca hasil pemeriksaan dan mencari hasil pemeriksaan (hanya tanda vital): hanya satu pasien yang dipilih untuk aplikasi ini ${VITALS}`,
        'a scope narrowed to one category says so',
      );
      // Allowing without a patient is not possible.
      await page.waitForSelector('#patient-results li.patient');
      await page.click('#approve');
      assert.equal(await page.textContent('#status'), 'Pilih pasien terlebih dahulu.', 'in the page language (Indonesian by default)');
      // The first page lists this hospital's patients only; searching the other hospital's name finds none.
      const listed = await page.locator('#patient-results li.patient label').allTextContents();
      assert.equal(listed.length, 3);
      assert.ok(listed.every((l) => !l.includes('Seberang')));
      await page.fill('#patient-search', 'seberang');
      await page.waitForSelector('#patient-results li.empty');
      await page.fill('#patient-search', 'launch du');
      await page.waitForFunction(() => document.querySelectorAll('#patient-results li.patient').length === 1);
      // Chosen and allowed by keyboard: the radio button, then Tab on to Allow.
      await page.focus(`#patient-${ids['Launch Dua']}`);
      await page.keyboard.press('Space');
      assert.match((await page.textContent('#patient-chosen')) ?? '', /Launch Dua/);
      await assertAccessibleOnPhoneAndTablet(page, 'patient picker');
      await page.focus('#approve');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.toString().startsWith(world.redirectUri));
      callback = new URL(page.url());
    } finally {
      await close();
    }
    const tokens = await oidc.authorizationCodeGrant(app.config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    const dua = ids['Launch Dua']!;
    assert.equal(tokens.patient, dua, 'the token response names the launch patient');
    assert.equal(decodeJwt(tokens.access_token)[PATIENT_CLAIM], dua);
    await reachesOnly(tokens.access_token, dua);

    const refreshed = await oidc.refreshTokenGrant(app.config, tokens.refresh_token!);
    assert.equal(refreshed.patient, dua, 'the patient context stays after a refresh');
    await reachesOnly(refreshed.access_token, dua);
  });

  test('a forged patient id of another hospital posted to consent reaches nothing; a missing or malformed one is refused', async () => {
    const browser = new Browserless(world.stack);
    const flow = await codeFlow(app.config, world.redirectUri, SCOPE);
    let { next } = await navigate(browser, flow.url.toString());
    assert.equal(next?.pathname, DASHBOARD.signIn);
    next = new URL((await browser.signIn(world.smtp, USERS.doctor, next!.search.slice(1))).url!, world.stack.publicUrl);
    // Consent was given before (the Chromium test): launch/patient still asks, to pick this launch's patient.
    assert.equal(next.pathname, DASHBOARD.consent);
    const oauthQuery = next.search.slice(1);
    const consent = (body: Json) =>
      browser.fetch('/api/auth/oauth2/consent', { method: 'POST', json: { accept: true, oauth_query: oauthQuery, ...body } });
    for (const body of [{}, { patient: 'not-a-patient' }, { patient: "1' or '1'='1" }]) {
      const refused = await consent(body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(((await refused.json()) as Json).error, 'invalid_request');
    }
    const foreign = ids['Launch Seberang']!;
    const answer = (await (await consent({ patient: foreign })).json()) as Json;
    const tokens = await oidc.authorizationCodeGrant(app.config, new URL(answer.url as string), {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    assert.equal(tokens.patient, foreign, 'identity cannot see records: it keeps the id as chosen');
    const read = await fhir(tokens.access_token, `Patient/${foreign}`);
    assert.equal(read.status, 404, "the other hospital's patient is not found");
    const search = await fhir(tokens.access_token, 'Patient');
    assert.equal(search.status, 200);
    assert.deepEqual(search.body.entry ?? [], [], 'a search finds nothing');
    assert.equal((await fhir(tokens.access_token, `Patient/${ids['Launch Satu']}`)).status, 404);
  });

  test('no patient can be picked without the consent page: prompt=none and the device grant refuse launch/patient', async () => {
    const flow = await codeFlow(app.config, world.redirectUri, SCOPE, { prompt: 'none' });
    const { next } = await navigate(new Browserless(world.stack), flow.url.toString());
    assert.equal(next?.searchParams.get('error'), 'interaction_required');
    const device = await fetch(`${world.stack.gatewayUrl}/api/auth/device/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: app.clientId, scope: SCOPE }),
    });
    assert.equal(device.status, 400);
    assert.equal(((await device.json()) as Json).error, 'invalid_scope');
  });
});

/** With `token`: Patient/<id> is read, any other patient is not found, and a search returns that one only. */
async function reachesOnly(token: string, id: string): Promise<void> {
  const read = await fhir(token, `Patient/${id}`);
  assert.equal(read.status, 200);
  assert.equal(read.body.id, id);
  for (const other of [ids['Launch Satu']!, ids['Launch Tiga']!, ids['Launch Seberang']!])
    assert.equal((await fhir(token, `Patient/${other}`)).status, 404, 'another patient is not found');
  const search = await fhir(token, 'Patient?_count=50');
  assert.equal(search.status, 200);
  assert.deepEqual(
    (search.body.entry as Json[]).map((e) => e.resource.id),
    [id],
  );
  const byName = await fhir(token, 'Patient?name=launch');
  assert.deepEqual(
    (byName.body.entry as Json[]).map((e) => e.resource.id),
    [id],
  );
}
