// Bad input of every kind gets a 4xx in the seed's envelope, never a 500, and changes no row.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { assertEnvelope, dataOf, newPasien, startRecords } from '../testing/index.ts';
import type { Reply, RecordsUnderTest } from '../testing/index.ts';

const MAX = 8192;

describe('bad input', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let existing: { id: string; nik: string };
  let snapshot: string;

  const state = async () =>
    JSON.stringify(
      (
        await r.owner.query(
          `select (select md5(coalesce(string_agg(p::text, ',' order by id), '')) from records.pasien p) as pasien,
                  (select md5(coalesce(string_agg(t::text, ',' order by pasien_id, kunci), '')) from records.pasien_nama t) as nama,
                  (select count(*) from records.audit_log) as audit,
                  (select coalesce(max(last_value), 0) from records.rm_counter) as counter`,
        )
      ).rows[0],
    );

  before(async () => {
    r = await startRecords('input', { MAX_BODY_BYTES: String(MAX) });
    admin = await r.principal('rs-demo', 'tenant_admin');
    existing = dataOf(await r.mutate('pasien.create', newPasien(1), admin));
    snapshot = await state();
  });
  after(async () => {
    await r?.stop();
  });

  const raw = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${r.url}${path}`, {
      method: 'POST',
      headers: { 'x-simrs-principal': admin, 'content-type': 'application/json', ...headers },
      body,
    }).then(async (res): Promise<Reply> => {
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    });

  const valid = () => newPasien(2);
  const sqlish = [
    "Robert'); DROP TABLE records.pasien;--",
    "' OR '1'='1",
    '1; DELETE FROM records.audit_log',
    "x' UNION SELECT * FROM records.pasien --",
    '$$; drop schema records cascade; $$',
  ];
  const oddUnicode = [
    'Siti\u0000Aminah',
    'Siti\u202eAminah',
    '\u200b\u200b',
    'Siti \ud800',
    'Budi 😀',
    'A'.repeat(5000),
    '\u0007bell',
    'Siti\r\nAminah',
    'Bu\ufeffdi',
  ];

  test('create: wrong types, unknown fields, invalid NIKs, SQL-like strings, odd unicode', async () => {
    const cases: [string, unknown][] = [
      ['nama as number', { ...valid(), nama: 123 }],
      ['birth date as object', { ...valid(), tanggalLahir: {} }],
      ['sex as array', { ...valid(), jenisKelamin: ['L'] }],
      ['null input', null],
      ['array input', [valid()]],
      ['string input', 'pasien'],
      ['empty object', {}],
      ['unknown field tenantId', { ...valid(), tenantId: 'rs-lain' }],
      ['unknown field id', { ...valid(), id: existing.id }],
      ['unknown field noRm', { ...valid(), noRm: '00000001' }],
      ['prototype pollution', JSON.parse(`{"__proto__": {"admin": true}, "nama": "X"}`)],
      ['NIK too short', { ...valid(), nik: '327305' }],
      ['NIK with letters', { ...valid(), nik: '32730517O8850012' }],
      ['NIK unknown province', { ...valid(), nik: '9973051708850012' }],
      ['NIK disagreeing with birth date', { ...valid(), nik: '3273051708850012' }],
      ['NIK as number', { ...valid(), nik: 3273051708850012 }],
      ['birth date in the future', { ...valid(), tanggalLahir: '2999-01-01' }],
      ['phone', { ...valid(), telepon: '+1 202 555 0100' }],
      ['blood type', { ...valid(), golonganDarah: 'Z' }],
      ...sqlish.map((s): [string, unknown] => [`SQL-like nama ${s}`, { ...valid(), nama: s }]),
      ...sqlish.map((s): [string, unknown] => [`SQL-like alamat ${s}`, { ...valid(), alamat: s }]),
      ...sqlish.map((s): [string, unknown] => [`SQL-like nik ${s}`, { ...valid(), nik: s }]),
      ...oddUnicode.map((s): [string, unknown] => [`odd unicode ${JSON.stringify(s).slice(0, 20)}`, { ...valid(), nama: s }]),
      ...oddUnicode.map((s): [string, unknown] => [`odd unicode alamat ${JSON.stringify(s).slice(0, 20)}`, { ...valid(), alamat: s }]),
    ];
    for (const [label, input] of cases) {
      const reply = await r.mutate('pasien.create', input, admin);
      assert.ok(reply.status >= 400 && reply.status < 500, `${label}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
      const e = assertEnvelope(reply, reply.status);
      assert.ok([400, 413].includes(reply.status), `${label}: ${reply.status}`);
      assert.equal(e.data.path, 'pasien.create', label);
    }
    const one = assertEnvelope(await r.mutate('pasien.create', { ...valid(), nik: '1', nama: '<b>', extra: 1 }, admin), 400, 'BAD_REQUEST');
    assert.ok(one.data.fieldErrors?.nik?.[0], 'a message for nik');
    assert.ok(one.data.fieldErrors?.nama?.[0], 'a message for nama');
    assert.match(JSON.stringify(one.data.fieldErrors), /unknown field\(s\): extra/);
    assert.equal(await state(), snapshot);
  });

  test('malformed JSON, wrong content type, oversized bodies', async () => {
    assertEnvelope(await raw('/trpc/pasien.create', '{"nik": "32'), 400);
    assertEnvelope(await raw('/trpc/pasien.create', 'nik=1&nama=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
    assertEnvelope(await raw('/api/v1/pasien', '{"nik": "32'), 400, 'PARSE_ERROR');
    assertEnvelope(await raw('/api/v1/pasien', '<pasien/>', { 'content-type': 'text/xml' }), 415);
    const big = JSON.stringify({ ...valid(), alamat: 'x'.repeat(MAX * 2) });
    assertEnvelope(await raw('/trpc/pasien.create', big), 413, 'PAYLOAD_TOO_LARGE');
    assertEnvelope(await raw('/api/v1/pasien', big), 413, 'PAYLOAD_TOO_LARGE');
    // Without Content-Length (chunked), the limit is enforced while reading.
    for (const path of ['/trpc/pasien.create', '/api/v1/pasien']) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${r.url}${path}`,
          { method: 'POST', headers: { 'x-simrs-principal': admin, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 4; i++) req.write(big.slice(i * (big.length / 4), (i + 1) * (big.length / 4)));
        req.end();
      });
      assert.equal(status, 413, path);
    }
    const longQuery = await r.query('pasien.list', { q: 'a'.repeat(MAX) }, admin);
    assert.ok(longQuery.status >= 400 && longQuery.status < 500, `long query string: ${longQuery.status}`);
    assert.equal(await state(), snapshot);
  });

  test('queries and updates: bad ids, filters and cursors', async () => {
    const queries: [string, unknown][] = [
      ['pasien.get', { id: 'not-a-uuid' }],
      ['pasien.get', { id: "1' OR '1'='1" }],
      ['pasien.get', {}],
      ['pasien.get', { id: existing.id, extra: true }],
      ['pasien.list', { q: "' OR 1=1 --" }],
      ['pasien.list', { noRm: '1 OR 1=1' }],
      ['pasien.list', { nik: "3273'; --" }],
      ['pasien.list', { tanggalLahir: '1985-13-45' }],
      ['pasien.list', { limit: 0 }],
      ['pasien.list', { limit: 1e9 }],
      ['pasien.list', { limit: 'abc' }],
      ['pasien.list', { cursor: "'; drop table records.pasien; --" }],
      ['pasien.list', { cursor: 'eyJ0ZW5hbnQiOiJycy1sYWluIn0' }],
      ['pasien.list', { status: 'deleted' }],
      ['pasien.list', { tenantId: 'rs-lain' }],
      ['audit.list', { action: 'drop' }],
      ['audit.list', { from: 'yesterday' }],
      ['audit.list', { pasienId: 'x' }],
      ['audit.list', { actorUserId: "x' or '1'='1" }],
    ];
    for (const [path, input] of queries) {
      const reply = await r.query(path, input, admin);
      assertEnvelope(reply, 400, 'BAD_REQUEST');
    }
    const updates: unknown[] = [
      { id: existing.id, nik: '9973051708850012' },
      { id: existing.id, jenisKelamin: 'P' },
      { id: existing.id, tanggalLahir: '2001-01-01' },
      { id: existing.id, noRm: '1' },
      { id: existing.id, tenantId: 'rs-lain' },
      { id: existing.id, nama: sqlish[0] },
      { id: existing.id, expectedVersion: 'one' },
      { id: 'nope', alamat: 'Jl. X' },
    ];
    for (const input of updates) assertEnvelope(await r.mutate('pasien.update', input, admin), 400, 'BAD_REQUEST');
    assertEnvelope(
      await r.mutate('pasien.update', { id: '00000000-0000-4000-8000-000000000000', alamat: 'Jl. X' }, admin),
      404,
      'NOT_FOUND',
    );
    assertEnvelope(await r.mutate('pasien.update', { id: existing.id, alamat: 'Jl. X', expectedVersion: 7 }, admin), 409, 'CONFLICT');
    assertEnvelope(await r.mutate('pasien.archive', { id: existing.id }, admin), 400, 'BAD_REQUEST');
    assertEnvelope(await r.rest('GET', '/pasien/not-a-uuid', { principal: admin }), 400, 'BAD_REQUEST');
    assertEnvelope(await r.rest('GET', '/pasien?limit=abc', { principal: admin }), 400, 'BAD_REQUEST');
    assertEnvelope(await r.rest('POST', '/pasien', { principal: admin, body: { ...valid(), extra: 1 } }), 400, 'BAD_REQUEST');
    assertEnvelope(await r.query('pasien.nope', {}, admin), 404, 'NOT_FOUND');
    assertEnvelope(await r.rest('GET', '/nope', { principal: admin }), 404, 'NOT_FOUND');
    assertEnvelope(await r.rest('DELETE', `/pasien/${existing.id}`, { principal: admin }), 404, 'NOT_FOUND');
    assert.equal(await state(), snapshot);
  });

  test('numbers stay numbers on every surface: text, booleans and arrays are refused, not converted', async () => {
    // REST first: the way it reads query strings must not change what tRPC accepts afterwards.
    for (const expectedVersion of ['6', true, [2], '1']) {
      const rest = await r.rest('PATCH', `/pasien/${existing.id}`, { principal: admin, body: { alamat: 'Jl. X', expectedVersion } });
      const e = assertEnvelope(rest, 400, 'BAD_REQUEST');
      assert.deepEqual(e.data.fieldErrors?.expectedVersion, ['expectedVersion must be a number'], JSON.stringify(expectedVersion));
      const trpc = await r.mutate('pasien.update', { id: existing.id, alamat: 'Jl. X', expectedVersion }, admin);
      assertEnvelope(trpc, 400, 'BAD_REQUEST');
    }
    for (const limit of ['5', true, [5]]) {
      assertEnvelope(await r.query('pasien.list', { limit }, admin), 400, 'BAD_REQUEST');
      assertEnvelope(await r.query('audit.list', { limit }, admin), 400, 'BAD_REQUEST');
    }
    // A query string is text: there, and only there, a number is read from it (digits only).
    for (const limit of ['abc', '5.5', '', '0x10', '1e1', ' 5'])
      assertEnvelope(await r.rest('GET', `/pasien?limit=${encodeURIComponent(limit)}`, { principal: admin }), 400, 'BAD_REQUEST');
    assert.equal(await state(), snapshot);
    assert.equal((await r.rest('GET', '/pasien?limit=5', { principal: admin })).status, 200);
    assert.equal((await r.rest('GET', '/audit?limit=5', { principal: admin })).status, 200);
  });

  test('a NIK already registered in the tenant: 409 with a field error, nothing written, no number burnt', async () => {
    const e = assertEnvelope(await r.mutate('pasien.create', newPasien(1, { nama: 'Orang Lain' }), admin), 409, 'CONFLICT');
    assert.ok(e.data.fieldErrors?.nik?.[0]);
    const other = dataOf<{ id: string; nik: string }>(await r.mutate('pasien.create', newPasien(3), admin));
    assertEnvelope(
      await r.mutate(
        'pasien.update',
        { id: other.id, nik: existing.nik, tanggalLahir: newPasien(1).tanggalLahir, jenisKelamin: newPasien(1).jenisKelamin },
        admin,
      ),
      409,
      'CONFLICT',
    );
    const { rows } = await r.owner.query("select no_rm from records.pasien where tenant_id = 'rs-demo' order by no_rm");
    assert.deepEqual(
      rows.map((x) => x.no_rm),
      ['00000001', '00000002'],
      'medical record numbers stay dense',
    );
  });
});
