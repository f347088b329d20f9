// Bad input through the gateway, on every route, against the real stack (gateway, identity, records,
// notifier as processes; Postgres; a private Redis; an SMTP peer): malformed JSON, wrong types, huge
// and deep bodies, bad UTF-8 and percent-encoding, unknown methods, duplicate and conflicting headers.
// Every answer is a 4xx in the shape documented for its path (never a 5xx), and the data is as it was.
// What particular routes answer to too deep JSON, a method they do not serve and a path that does not
// exist: bad-input-routes.test.ts.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertDocumentedError } from './support/shapes.ts';
import { cookie, json, nested, nestedObject, raw, stack, useBadInputStack } from './support/bad-input.ts';

useBadInputStack('bad');

/** What must be as it was after the battery: patients (with versions), users, tenants, passkeys. */
async function snapshot(): Promise<string> {
  const pg = (await import('pg')).default;
  const out: unknown[] = [];
  for (const [url, sql] of [
    [stack.databases.records, 'select id, version, status, archived_at, nama, nik from records.pasien order by id'],
    [stack.databases.identity, 'select id, email, role, "tenantId", active from "user" order by id'],
    [stack.databases.identity, 'select id, name from tenant order by id'],
    [stack.databases.identity, 'select id from passkey order by id'],
  ] as const) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      out.push((await client.query(sql)).rows);
    } finally {
      await client.end();
    }
  }
  return JSON.stringify(out);
}

const PATIENT = {
  nik: '3273012307910001',
  nama: 'Budi Santoso',
  tempatLahir: 'Bandung',
  tanggalLahir: '1991-07-23',
  jenisKelamin: 'L',
  alamat: 'Jl. Kenari No. 7',
  kotaKabupaten: 'Bandung',
  provinsi: 'Jawa Barat',
};

describe('bad-input battery through the gateway', () => {
  let patientId: string;
  let baseline: string;
  const answers: { what: string; status: number }[] = [];

  const failures: string[] = [];

  /** Sends, then checks: never a 5xx; a 4xx in the documented shape. Failures are listed together. */
  async function probe(what: string, method: string, path: string, headers: [string, string][], body?: Buffer | string) {
    const res = await raw(method, path, headers, body);
    answers.push({ what, status: res.status });
    try {
      assert.ok(res.status > 0 && res.status < 500, `answered ${res.status} ${res.body.slice(0, 300)}`);
      if (res.status >= 400 && method !== 'HEAD')
        await assertDocumentedError(
          new Response(res.body, { status: res.status, headers: { 'content-type': res.headers['content-type'] ?? '' } }),
          path.split('?')[0]!,
          `${res.status}`,
        );
    } catch (err) {
      failures.push(`${what}: ${method} ${path.slice(0, 80)}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const noFailures = () => {
    const found = failures.splice(0);
    assert.deepEqual(found, [], `${found.length} bad answers:\n${found.join('\n')}`);
  };

  const signedIn = (): [string, string][] => [
    ['cookie', cookie],
    ['origin', stack.publicUrl],
  ];
  const asJson = (): [string, string][] => [...signedIn(), ['content-type', 'application/json']];

  before(async () => {
    const created = await fetch(`${stack.gatewayUrl}/trpc/pasien.create`, { method: 'POST', headers: json, body: JSON.stringify(PATIENT) });
    assert.equal(created.status, 200, await created.clone().text());
    patientId = ((await created.json()) as { result: { data: { id: string } } }).result.data.id;
    baseline = await snapshot();
  });

  const POST_ROUTES = () => [
    '/api/auth/email-otp/send-verification-otp',
    '/api/auth/sign-in/magic-link',
    '/api/auth/sign-in/email-otp',
    '/api/auth/update-session',
    '/api/auth/passkey/verify-authentication',
    '/api/auth/passkey/verify-registration',
    '/api/auth/account/revoke-session',
    '/api/auth/tenant/invite-user',
    '/api/auth/tenant/change-role',
    '/api/auth/oauth2/token',
    '/api/auth/oauth2/register',
    '/api/auth/oauth2/introspect',
    '/api/auth/device/code',
    '/trpc/pasien.create',
    '/trpc/pasien.update',
    '/trpc/pasien.archive',
    '/api/v1/pasien',
    `/api/v1/pasien/${patientId}/archive`,
  ];

  test('malformed JSON, wrong types, bad UTF-8, the wrong media type', async () => {
    const bodies: [string, string, Buffer | string][] = [
      ['malformed JSON', 'application/json', '{"email":'],
      ['not JSON at all', 'application/json', 'email=a@b.c'],
      ['an array', 'application/json', '[1,2,3]'],
      ['a string', 'application/json', '"x"'],
      ['null', 'application/json', 'null'],
      ['wrong types', 'application/json', JSON.stringify({ email: 5, type: [], otp: {}, nik: 3273, nama: null, id: { $ne: 1 }, role: 7 })],
      [
        'bad UTF-8',
        'application/json',
        Buffer.concat([Buffer.from('{"email":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('@x.test"}')]),
      ],
      [
        'overlong UTF-8 and lone surrogates',
        'application/json',
        Buffer.concat([Buffer.from('{"nama":"'), Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('\\ud800"}')]),
      ],
      [
        'NUL and lone surrogates everywhere',
        'application/json',
        JSON.stringify(
          Object.fromEntries(
            ['email', 'otp', 'name', 'nama', 'alamat', 'theme', 'id', 'client_id', 'token', 'role', 'reason'].map((k) => [
              k,
              `a\u0000b\ud800c`,
            ]),
          ),
        ),
      ],
      ['the wrong media type', 'text/xml', '<x/>'],
      ['a JSON body declared as a form', 'application/x-www-form-urlencoded', '{"grant_type":"client_credentials"}'],
      ['a form of nonsense', 'application/x-www-form-urlencoded', 'grant_type=%ZZ&&==&client_id[]=1'],
    ];
    for (const path of POST_ROUTES())
      for (const [what, type, body] of bodies) await probe(what, 'POST', path, [...signedIn(), ['content-type', type]], body);
    noFailures();
  });

  test('huge and deep bodies', async () => {
    for (const path of POST_ROUTES()) {
      await probe('a 2 MB body', 'POST', path, asJson(), JSON.stringify({ email: 'x'.repeat(2 * 1024 * 1024) }));
      await probe('10,000 levels of arrays', 'POST', path, asJson(), nested(10_000));
      await probe('65 levels of objects', 'POST', path, asJson(), nestedObject(65));
      await probe(
        '100,000 keys',
        'POST',
        path,
        asJson(),
        JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))),
      );
    }
    noFailures();
  });

  test('bad percent-encoding and odd paths and queries', async () => {
    for (const path of [
      '/trpc/pasien.%ZZ',
      '/trpc/pasien.list?input=%ZZ',
      '/trpc/pasien.list?input=%7B%22q%22%3A%ZZ',
      '/trpc/pasien.list?input=' + encodeURIComponent('{"limit":"ten"}'),
      '/trpc/pasien.get?input=' + encodeURIComponent('{"id":{"$gt":""}}'),
      '/trpc/pasien.list,pasien.get?batch=1&input=%ZZ',
      '/api/v1/pasien/%ZZ',
      '/api/v1/pasien/%E0%A4%A',
      '/api/v1/pasien?limit=abc&cursor=%ZZ',
      '/api/v1/pasien?limit=-1',
      '/api/auth/magic-link/verify?token=%ZZ',
      '/api/auth/get-session?disableCookieCache=%ZZ',
      '/api/auth/oauth2/authorize?client_id=%ZZ&response_type=code',
      '/api/auth/device?user_code=%ZZ',
      '/auth/device?user_code=%ZZ',
      '/auth/sign-in?error=%ZZ',
      '/auth/%ZZ',
      '/.well-known/openid-configuration?%ZZ',
      '/%ZZ',
    ])
      await probe('bad encoding', 'GET', path, signedIn());
    noFailures();
  });

  test('unknown methods on every route', async () => {
    for (const path of [
      '/api/auth/get-session',
      '/auth/sign-in',
      '/masuk',
      '/trpc/pasien.list',
      '/api/v1/pasien',
      '/.well-known/openid-configuration',
    ])
      for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'CONNECTX', 'PURGE', 'LINK', 'SEARCH'])
        await probe('unknown method', method, path, signedIn());
    noFailures();
  });

  test('duplicate and conflicting headers', async () => {
    const body = JSON.stringify(PATIENT);
    for (const path of ['/trpc/pasien.create', '/api/v1/pasien', '/api/auth/update-session', '/api/auth/sign-in/email-otp']) {
      await probe(
        'two content types',
        'POST',
        path,
        [...signedIn(), ['content-type', 'application/json'], ['content-type', 'text/plain']],
        body,
      );
      await probe(
        'two content lengths',
        'POST',
        path,
        [...asJson(), ['content-length', String(body.length)], ['content-length', '3']],
        body,
      );
      await probe(
        'content-length and chunked',
        'POST',
        path,
        [...asJson(), ['content-length', '3'], ['transfer-encoding', 'chunked']],
        `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
      await probe('two cookies, one foreign', 'POST', path, [...asJson(), ['cookie', 'simrs.session_token=forged.value']], body);
      await probe('two origins', 'POST', path, [...asJson(), ['origin', 'https://evil.example']], body);
      await probe(
        'two authorizations',
        'POST',
        path,
        [...asJson(), ['authorization', 'Bearer a.b.c'], ['authorization', 'Bearer d.e.f']],
        body,
      );
      await probe('two hosts', 'POST', path, [...asJson(), ['host', 'evil.example']], body);
      await probe('a principal header of its own', 'POST', path, [...asJson(), ['x-simrs-principal', 'eyJhbGciOiJub25lIn0.e30.']], body);
      await probe('a header with a bad byte', 'POST', path, [...asJson(), ['x-request-id', 'a\u00ffb']], body);
    }
    noFailures();
  });

  test('no 5xx anywhere, and the data is as it was', async () => {
    assert.ok(answers.length > 300, `${answers.length} probes`);
    assert.equal(answers.filter((a) => a.status >= 500).length, 0);
    assert.equal(await snapshot(), baseline);
    const list = await fetch(`${stack.gatewayUrl}/trpc/pasien.get?input=${encodeURIComponent(JSON.stringify({ id: patientId }))}`, {
      headers: json,
    });
    assert.equal(list.status, 200);
    const patient = ((await list.json()) as { result: { data: { nama: string; version: number } } }).result.data;
    assert.equal(patient.nama, PATIENT.nama);
    assert.equal(patient.version, 1);
  });
});
