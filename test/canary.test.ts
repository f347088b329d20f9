// Issue 8 canary: distinctive values (an e-mail address, an OTP, a magic-link token, a session token,
// a patient's name and NIK, a signed principal, a bearer token, a hospital's SATUSEHAT client secret)
// go through every flow: sign-in by code and by link, session calls, patient create/list/search/get/
// update over tRPC and REST, bad input, refused credentials, the SATUSEHAT connection saved and tested
// against the stand-in platform. Afterwards none of them appears in any log line of any service, in
// any exported span (name, attributes, status), or in any Redis key name; the client secret in no
// Redis value and no API answer either.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { signPrincipal } from '@simrs/contracts/principal';
import { testServerUrl } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { otlpEnv, startOtlpReceiver } from './support/otlp.ts';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startSatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import type { SatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import * as oidc from 'openid-client';
import { Browserless, issueRegistrationToken, registerClient, tokensFor } from './support/oauth.ts';
import { isOtpMail, seedUsers, sessionCookie, signInWithOtp } from './support/users.ts';

let stack: Stack;
let redis: RedisServer;
let smtp: SmtpPeer;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let satusehat: SatusehatPeer;

const EMAIL = 'kanari.zq7x@rs-canary.test';
const LINK_EMAIL = 'tautan.qv9w@rs-canary.test';
const NAMA = 'Kanarius Zwqetyaputra';
const NAMA_IBU = 'Ibunda Xqvromalinda';
// A structurally valid NIK for a man born 1991-07-23 (province 32, regency 73, district 19).
const NIK = '3273192307919876';
const BEARER = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJrYW5hcmkifQ.Q2FuYXJ5U2lnbmF0dXJlT25seUZvclRlc3Rpbmc';
const SATUSEHAT_SECRET = 'kanariRahasiaSatusehat7Qx9Wm2LpZ';

/** Every value that must not leak, in the forms it could take (as is, URL-encoded). */
const canaries = new Map<string, string>();
function canary(label: string, value: string): void {
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) canaries.set(escaped, `${label} (JSON-escaped)`);
  if (encodeURIComponent(value) !== value) canaries.set(encodeURIComponent(value), `${label} (URL-encoded)`);
  canaries.set(value, label);
}
for (const [label, value] of [
  ['e-mail', EMAIL],
  ['e-mail', LINK_EMAIL],
  ['patient name', NAMA],
  ['patient name', 'Zwqetyaputra'],
  ['mother name', 'Xqvromalinda'],
  ['NIK', NIK],
  ['bearer token', BEARER],
  ['SATUSEHAT client secret', SATUSEHAT_SECRET],
] as const)
  canary(label, value);

/** Where a canary occurs in `text`: codes and NIKs only as whole tokens (not inside hex or numbers). */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const [value, label] of canaries) {
    const whole = /^\d+$/.test(value) ? new RegExp(`(?<![0-9A-Za-z])${value}(?![0-9A-Za-z])`).test(text) : text.includes(value);
    if (whole) found.push(label);
  }
  return found;
}

before(async () => {
  [redis, smtp, otlp, satusehat] = await Promise.all([startRedisServer(), startSmtpPeer(), startOtlpReceiver(), startSatusehatPeer()]);
  stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_canary_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    env: { all: { ...otlpEnv(otlp.endpoint), LOG_LEVEL: 'debug' }, records: { SATUSEHAT_STAGING_URL: satusehat.url } },
  });
  await seedUsers(stack, [
    { email: EMAIL, tenant: 'rs-canary', role: 'tenant_admin' },
    { email: LINK_EMAIL, tenant: 'rs-canary', role: 'doctor' },
  ]);
});

after(async () => {
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop(), otlp?.stop(), satusehat?.stop()]);
});

describe('canary', () => {
  test('secrets and personal data go through every flow and leave no trace in logs, spans or Redis keys', async () => {
    const gw = stack.gatewayUrl;
    const json = { 'content-type': 'application/json', origin: stack.publicUrl };

    // A wrong code first (a failure path), then the real sign-in by e-mail code.
    const first = smtp.messages.length;
    await fetch(`${gw}/api/auth/email-otp/send-verification-otp`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: EMAIL, type: 'sign-in' }),
    });
    // The code's mail, not the invitation seedUsers sent (which may arrive after `first` was taken).
    await smtp.waitForMail(EMAIL, first, isOtpMail);
    const wrong = await fetch(`${gw}/api/auth/sign-in/email-otp`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: EMAIL, otp: '000000' }),
    });
    assert.notEqual(wrong.status, 200);
    const { cookie, otp } = await signInWithOtp(stack, smtp, EMAIL);
    canary('OTP', otp);
    const cookieValue = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
    canary('session cookie', cookieValue);
    canary('session token', cookieValue.split('.')[0]!);

    // Sign-in by magic link, with the token in the query string.
    const since = smtp.messages.length;
    const sent = await fetch(`${gw}/api/auth/sign-in/magic-link`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: LINK_EMAIL }),
    });
    assert.equal(sent.status, 200);
    const mail = await smtp.waitForMail(LINK_EMAIL, since, (m) => /magic-link\/verify/.test(m.text));
    const link = new URL(/https?:\/\/\S+magic-link\/verify\S+/.exec(mail.text)![0]);
    canary('magic-link token', link.searchParams.get('token')!);
    const opened = await fetch(`${gw}${link.pathname}${link.search}`, { redirect: 'manual' });
    const linkCookie = sessionCookie(opened.headers.getSetCookie());
    assert.ok(linkCookie, 'the link signs in');
    canary('link session token', decodeURIComponent(linkCookie.slice(linkCookie.indexOf('=') + 1)).split('.')[0]!);
    const reused = await fetch(`${gw}${link.pathname}${link.search}`, { redirect: 'manual' });
    assert.equal(sessionCookie(reused.headers.getSetCookie()), undefined, 'a used link fails (failure path)');

    // Session calls.
    const withCookie = { ...json, cookie };
    assert.equal((await fetch(`${gw}/api/auth/get-session`, { headers: withCookie })).status, 200);
    const props = await fetch(`${gw}/api/auth/update-session`, {
      method: 'POST',
      headers: withCookie,
      body: JSON.stringify({ catatan: NAMA }),
    });
    assert.equal(props.status, 200);

    // Patients over tRPC: create (body), list and search (query string), get, update, bad input.
    const create = await fetch(`${gw}/trpc/pasien.create`, {
      method: 'POST',
      headers: withCookie,
      body: JSON.stringify({
        nik: NIK,
        nama: NAMA,
        namaIbu: NAMA_IBU,
        tempatLahir: 'Bandung',
        tanggalLahir: '1991-07-23',
        jenisKelamin: 'L',
        alamat: 'Jl. Kenari No. 7',
        kotaKabupaten: 'Bandung',
        provinsi: 'Jawa Barat',
      }),
    });
    const created = (await create.json()) as { result?: { data: { id: string } } };
    assert.equal(create.status, 200, JSON.stringify(created));
    const id = created.result!.data.id;
    const duplicate = await fetch(`${gw}/trpc/pasien.create`, {
      method: 'POST',
      headers: withCookie,
      body: JSON.stringify({
        nik: NIK,
        nama: NAMA,
        tempatLahir: 'Bandung',
        tanggalLahir: '1991-07-23',
        jenisKelamin: 'L',
        alamat: 'x',
        kotaKabupaten: 'x',
        provinsi: 'x',
      }),
    });
    assert.equal(duplicate.status, 409, 'the same NIK twice is a conflict (an error path)');
    for (const input of [{ q: 'Zwqetyaputra' }, { nik: NIK }, { q: NAMA }]) {
      const res = await fetch(`${gw}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: withCookie });
      assert.equal(res.status, 200, await res.text());
    }
    assert.equal(
      (await fetch(`${gw}/trpc/pasien.get?input=${encodeURIComponent(JSON.stringify({ id }))}`, { headers: withCookie })).status,
      200,
    );
    const update = await fetch(`${gw}/trpc/pasien.update`, {
      method: 'POST',
      headers: withCookie,
      body: JSON.stringify({ id, namaIbu: `${NAMA_IBU} Baru` }),
    });
    assert.equal(update.status, 200, await update.text());
    const bad = await fetch(`${gw}/trpc/pasien.create`, {
      method: 'POST',
      headers: withCookie,
      body: JSON.stringify({ nik: `${NIK}9`, nama: NAMA }),
    });
    assert.equal(bad.status, 400);

    // The same over REST, with the NIK in the query string and the id in the path.
    const rest = await fetch(`${gw}/api/v1/pasien?nik=${NIK}&q=${encodeURIComponent(NAMA)}`, { headers: withCookie });
    assert.equal(rest.status, 200, await rest.text());
    assert.equal((await fetch(`${gw}/api/v1/pasien/${id}`, { headers: withCookie })).status, 200);

    // The same over FHIR: the NIK and the name in search parameters, in If-None-Exist and in bodies,
    // the id and a version in the path, and an error path (a NIK the record refuses).
    const nikSystem = 'https://fhir.kemkes.go.id/id/nik';
    const fhir = `${gw}/api/v1/fhir`;
    const search = await fetch(`${fhir}/Patient?identifier=${encodeURIComponent(`${nikSystem}|${NIK}`)}&name=${encodeURIComponent(NAMA)}`, {
      headers: withCookie,
    });
    assert.equal(search.status, 200, await search.text());
    assert.equal((await fetch(`${fhir}/Patient/${id}/_history/1`, { headers: withCookie })).status, 200);
    const patient = {
      resourceType: 'Patient',
      identifier: [{ system: nikSystem, value: NIK }],
      name: [{ text: NAMA }],
      gender: 'male',
      birthDate: '1991-07-23',
      address: [{ line: ['Jl. Kenari No. 7'], city: 'Bandung', state: 'Jawa Barat' }],
      extension: [{ url: 'https://fhir.kemkes.go.id/r4/StructureDefinition/birthPlace', valueAddress: { city: 'Bandung' } }],
    };
    const fhirHeaders = { ...withCookie, 'content-type': 'application/fhir+json' };
    const conditional = await fetch(`${fhir}/Patient`, {
      method: 'POST',
      headers: { ...fhirHeaders, 'if-none-exist': `identifier=${nikSystem}|${NIK}` },
      body: JSON.stringify(patient),
    });
    assert.equal(conditional.status, 200, 'found by its NIK');
    const refused = await fetch(`${fhir}/Patient`, {
      method: 'POST',
      headers: fhirHeaders,
      body: JSON.stringify({ ...patient, identifier: [{ system: nikSystem, value: `${NIK}9` }] }),
    });
    assert.equal(refused.status, 400);

    // Refused credentials: a bearer token that is not one, a forged principal, a signed principal sent
    // straight to records (which accepts it: records trusts only the signature).
    const principal = await signPrincipal(
      { userId: 'u-canary', tenantId: 'rs-canary', role: 'doctor', scopes: ['simrs:read'] },
      stack.secrets.principal,
    );
    canary('signed principal', principal);
    assert.equal((await fetch(`${gw}/trpc/pasien.list`, { headers: { authorization: `Bearer ${BEARER}` } })).status, 401);
    assert.equal((await fetch(`${gw}/trpc/pasien.list`, { headers: { 'x-simrs-principal': principal } })).status, 401);
    assert.equal(
      (
        await fetch(`${stack.urls.records}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ nik: NIK }))}`, {
          headers: { 'x-simrs-principal': principal },
        })
      ).status,
      200,
    );
    assert.equal(
      (await fetch(`${stack.urls.records}/trpc/pasien.list`, { headers: { 'x-simrs-principal': `${principal}x` } })).status,
      401,
    );

    // An integration: registration with an initial access token, the code flow with PKCE, API calls with
    // the access token (tRPC and REST), a refresh, and revocation of both tokens.
    const iat = await issueRegistrationToken(stack, EMAIL);
    canary('initial access token', iat);
    const app = await registerClient(stack, iat, {
      client_name: 'Canary integration',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_post',
    });
    canary('client secret', app.clientSecret!);
    const tokens = await tokensFor(stack, smtp, app, new Browserless(stack), EMAIL);
    canary('access token', tokens.access_token);
    canary('refresh token', tokens.refresh_token!);
    if (tokens.id_token) canary('id token', tokens.id_token);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    assert.equal(
      (await fetch(`${gw}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ nik: NIK }))}`, { headers: bearer })).status,
      200,
    );
    assert.equal((await fetch(`${gw}/api/v1/pasien/${id}`, { headers: bearer })).status, 200);
    const refreshed = await oidc.refreshTokenGrant(app.config, tokens.refresh_token!);
    canary('refreshed access token', refreshed.access_token);
    canary('refreshed refresh token', refreshed.refresh_token!);
    await oidc.tokenRevocation(app.config, refreshed.access_token);
    await oidc.tokenRevocation(app.config, refreshed.refresh_token!);

    // The hospital's SATUSEHAT client secret: saved, tested against the platform (which sees it), never answered.
    satusehat.addTenant({ organizationId: '100077001', clientId: 'kanari-client', clientSecret: SATUSEHAT_SECRET });
    const mutation = (path: string, input?: unknown) =>
      fetch(`${gw}/trpc/${path}`, { method: 'POST', headers: withCookie, ...(input === undefined ? {} : { body: JSON.stringify(input) }) });
    const answers = [
      await mutation('pengaturan.update', { organizationId: '100077001' }),
      await mutation('satusehat.connect', { environment: 'staging', clientId: 'kanari-client', clientSecret: SATUSEHAT_SECRET }),
      await mutation('satusehat.test'),
      await fetch(`${gw}/trpc/satusehat.connection`, { headers: withCookie }),
    ].map(async (res) => ({ status: res.status, text: await res.text() }));
    const answered = await Promise.all(answers);
    assert.deepEqual(
      answered.map((a) => a.status),
      [200, 200, 200, 200],
      JSON.stringify(answered),
    );
    assert.match(answered[2]!.text, /"ok":true/, 'the platform took the secret');
    for (const a of answered) assert.ok(!a.text.includes(SATUSEHAT_SECRET), 'no answer carries the secret');

    // Sign out (revocation published on Redis).
    assert.equal((await fetch(`${gw}/api/auth/sign-out`, { method: 'POST', headers: withCookie, body: '{}' })).status, 200);

    // Let the last spans be exported (every service batches for 200 ms), then look everywhere.
    await new Promise((r) => setTimeout(r, 1_500));
    // The detector itself works: the mail (which is meant to carry them) shows the code and the link.
    assert.ok(leaks(smtp.messages.map((m) => m.text).join('\n')).includes('OTP'), 'the OTP is found where it belongs');
    assert.ok(leaks(mail.text).includes('magic-link token'), 'the link token is found where it belongs');
    assert.deepEqual(leaks(`{"nik":"${NIK}"}`), ['NIK']);
    const problems: string[] = [];
    for (const service of Object.values(stack.services)) {
      for (const line of service.lines)
        for (const label of leaks(line)) problems.push(`${service.name} log: ${label}: ${line.slice(0, 300)}`);
    }
    assert.ok(otlp.spans.length > 50, `spans were exported (${otlp.spans.length})`);
    for (const span of otlp.spans) {
      const text = JSON.stringify({ name: span.name, attributes: span.attributes, status: span.status });
      for (const label of leaks(text)) problems.push(`${span.service} span ${span.name}: ${label}: ${text.slice(0, 300)}`);
    }
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('*');
      assert.ok(keys.length > 0, 'Redis holds keys');
      for (const key of keys) for (const label of leaks(key)) problems.push(`Redis key: ${label}: ${key}`);
      for (const key of keys)
        if ((await client.type(key)) === 'string' && (await client.get(key))?.includes(SATUSEHAT_SECRET))
          problems.push(`Redis value: SATUSEHAT client secret: ${key}`);
    } finally {
      client.disconnect();
    }
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} leaks`);
    // The lines that must exist do: one request line per gateway request, with the procedure as route.
    const requestLines = stack.services.gateway.lines.filter((l) => l.includes('"msg":"request"'));
    assert.ok(
      requestLines.some((l) => l.includes('"route":"/trpc/pasien.list"')),
      'request lines name the procedure',
    );
  });
});
