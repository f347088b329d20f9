// The single-call path (shims/single-call.ts) answers exactly as tRPC's adapter does: the same status, body and headers
// (content type, Vary, Retry-After) for a success and for every kind of error, from the real router,
// guards and error formatter, over a database handle that answers in memory. And it leaves to the
// adapter what it does not handle (batches, mutations, encoded paths, streaming).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { Principal } from '@simrs/contracts/principal';
import type { TenantDb } from '../db/index.ts';
import { COLUMNS } from '../pasien/index.ts';
import { cursors } from './cursor.ts';
import { appRouter } from './router.ts';
import { singleCallHandler } from '../shims/index.ts';
import type { Context } from './trpc.ts';

const ROW = {
  id: '6f1c2f6e-8a43-4d8f-9b7e-0c2a3f4b5c6d',
  noRm: '00000042',
  nik: '3273010101900001',
  nama: 'Siti Aminah',
  tempatLahir: 'Bandung',
  tanggalLahir: '1990-01-01',
  jenisKelamin: 'P',
  golonganDarah: null,
  rhesus: null,
  agama: 'Islam',
  statusPerkawinan: null,
  pekerjaan: null,
  namaIbu: null,
  alamat: 'Jl. Merdeka No. 1',
  rt: null,
  rw: null,
  kelurahan: null,
  kecamatan: null,
  kotaKabupaten: 'Kota Bandung',
  provinsi: 'Jawa Barat',
  kodePos: null,
  telepon: '+6281234567890',
  noBpjs: null,
  status: 'active',
  archivedAt: null,
  archiveReason: null,
  version: 1,
  createdAt: '2026-01-02T03:04:05.678Z',
  updatedAt: '2026-01-02T03:04:05.678Z',
  _k1: '00000042',
};

const principals: Record<string, Principal> = {
  doctor: { userId: 'u-1', tenantId: 'rs-demo', role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
  noScope: { userId: 'u-2', tenantId: 'rs-demo', role: 'doctor', scopes: [] },
  auditor: { userId: 'u-3', tenantId: 'rs-demo', role: 'auditor', scopes: ['simrs:read'] },
};

/** The database answers by the request's `x-db` header: rows, unavailable, or a bug. */
function fakeDb(mode: string): TenantDb {
  const one = async (_sql: string, _values?: unknown[], opts?: { rowMode?: 'array' }) => {
    if (mode === 'down') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    if (mode === 'bug') throw new Error('column "x" does not exist');
    const rows = [ROW, { ...ROW, id: '7f1c2f6e-8a43-4d8f-9b7e-0c2a3f4b5c6d', noRm: '00000041', _k1: '00000041' }];
    // As pg gives them: by position (the select list: every field, then the sort key) when asked.
    return opts?.rowMode === 'array' ? rows.map((r) => [...Object.keys(COLUMNS).map((f) => r[f as keyof typeof r]), r._k1]) : rows;
  };
  return { tenantId: 'rs-demo', one: one as TenantDb['one'], tx: () => Promise.reject(new Error('no transactions here')) };
}

async function createContext(req: IncomingMessage): Promise<Context> {
  const principal = principals[String(req.headers['x-as'] ?? '')];
  if (req.headers['x-context'] === 'throws') throw new Error('context failed');
  const requestId = 'req-1';
  const scope = principal
    ? { db: fakeDb(String(req.headers['x-db'] ?? 'rows')), actor: { ...principal, requestId }, cursors: cursors('k'.repeat(32)) }
    : undefined;
  return { principal, requestId, scope };
}

const errors: string[] = [];
const onError = (error: { code: string }, path: string | undefined) => void errors.push(`${path}:${error.code}`);
const headersFor = (errs: readonly { code: string }[]): Record<string, string> =>
  errs.some((e) => e.code === 'SERVICE_UNAVAILABLE') ? { 'retry-after': '1' } : {};

const MAX_BODY = 4096;
let adapterServer: Server;
let fastServer: Server;
let taken = 0;
const urls = { adapter: '', fast: '' };

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

before(async () => {
  const adapter = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: MAX_BODY,
    createContext: ({ req }) => createContext(req),
    onError: ({ error, path }) => onError(error, path),
    responseMeta: ({ errors: errs }) => ({ headers: headersFor(errs) }),
  });
  const single = singleCallHandler({ router: appRouter, createContext, onError, headersFor, maxBodyBytes: MAX_BODY });
  adapterServer = createServer((req, res) => adapter(req, res));
  fastServer = createServer((req, res) => {
    const url = req.url ?? '/';
    const pathname = url.split('?')[0]!;
    if (single(req, res, pathname.slice('/trpc/'.length), url.slice(pathname.length))) return void taken++;
    adapter(req, res);
  });
  urls.adapter = await listen(adapterServer);
  urls.fast = await listen(fastServer);
});

after(async () => {
  await Promise.all([adapterServer, fastServer].map((s) => new Promise((resolve) => s.close(resolve))));
});

async function both(path: string, headers: Record<string, string> = {}, init: RequestInit = {}) {
  const call = async (base: string) => {
    errors.length = 0;
    const res = await fetch(`${base}${path}`, { ...init, headers });
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      vary: res.headers.get('vary'),
      retryAfter: res.headers.get('retry-after'),
      allow: res.headers.get('allow'),
      body: await res.text(),
      errors: [...errors],
    };
  };
  const before = taken;
  const adapter = await call(urls.adapter);
  const fast = await call(urls.fast);
  return { adapter, fast, tookIt: taken > before };
}

const list = (input?: unknown) => `/trpc/pasien.list${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;

describe('single GET query: the same answer as the tRPC adapter', () => {
  const cases: Array<[string, string, Record<string, string>]> = [
    ['a page', list({ limit: 20 }), { 'x-as': 'doctor' }],
    ['no input (the defaults)', list(), { 'x-as': 'doctor' }],
    ['the public health check', '/trpc/healthCheck', {}],
    ['no principal: 401', list({ limit: 20 }), {}],
    ['no read scope: 403', list({ limit: 20 }), { 'x-as': 'noScope' }],
    ['a role without the permission: 403', list({ limit: 20 }), { 'x-as': 'auditor' }],
    ['invalid input: 400 with field errors', list({ limit: 500, q: '<b>' }), { 'x-as': 'doctor' }],
    ['an unknown field: 400', list({ sort: 'nama' }), { 'x-as': 'doctor' }],
    ['input that is not JSON', '/trpc/pasien.list?input=%7Bnope', { 'x-as': 'doctor' }],
    ['a cursor that is not ours: 400', list({ cursor: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), { 'x-as': 'doctor' }],
    ['the database away: 503 with Retry-After', list({ limit: 20 }), { 'x-as': 'doctor', 'x-db': 'down' }],
    ['a bug: 500 that says nothing', list({ limit: 20 }), { 'x-as': 'doctor', 'x-db': 'bug' }],
    ['the context failing: 500', list({ limit: 20 }), { 'x-context': 'throws' }],
  ];
  for (const [name, path, headers] of cases) {
    test(name, async () => {
      const { adapter, fast, tookIt } = await both(path, headers);
      assert.ok(tookIt, 'answered by the single-call path');
      assert.deepEqual(fast, adapter);
    });
  }

  test('a page of rows, as the store built them', async () => {
    const { fast } = await both(list({ limit: 20 }), { 'x-as': 'doctor' });
    const data = (JSON.parse(fast.body) as { result: { data: { items: Array<Record<string, unknown>>; nextCursor: null } } }).result.data;
    assert.equal(data.items.length, 2);
    assert.equal(data.nextCursor, null);
    assert.equal(data.items[0]!.nama, 'Siti Aminah');
    assert.equal('_k1' in data.items[0]!, false, 'sort keys never leave the service');
    const { _k1, ...fields } = ROW;
    assert.deepEqual(data.items[0], fields, 'every field, from its own column');
    assert.deepEqual(Object.keys(data.items[0]!), Object.keys(COLUMNS), 'in the order of the API');
  });

  test('a page with more behind it: the cursor carries the last row sort key', async () => {
    const { fast } = await both(list({ limit: 1 }), { 'x-as': 'doctor' });
    const data = (JSON.parse(fast.body) as { result: { data: { items: Array<{ id: string }>; nextCursor: string } } }).result.data;
    assert.deepEqual(
      data.items.map((i) => i.id),
      [ROW.id],
    );
    assert.deepEqual(cursors('k'.repeat(32)).open(data.nextCursor, 'pasien.rm', 'rs-demo'), [ROW._k1]);
  });
});

describe('single POST mutation: the same answer as the tRPC adapter', () => {
  const json = { 'content-type': 'application/json' };
  const vitals = (measurements: unknown) => JSON.stringify({ kunjunganId: ROW.id, measurements });
  const pulse = vitals([{ key: 'nadi', value: 80, unit: '/min' }]);
  const cases: Array<[string, Record<string, string>, string | undefined]> = [
    ['a write, as the store answers it', { 'x-as': 'doctor' }, pulse],
    ['no principal: 401', {}, pulse],
    ['no write scope: 403', { 'x-as': 'noScope' }, pulse],
    ['a role without the permission: 403', { 'x-as': 'auditor' }, pulse],
    ['an implausible value: 400 with field errors', { 'x-as': 'doctor' }, vitals([{ key: 'sistolik', value: 900, unit: 'mm[Hg]' }])],
    ['no body: 400', { 'x-as': 'doctor' }, undefined],
    ['a body that is not JSON: 400', { 'x-as': 'doctor' }, '{nope'],
    ['a body past the limit: 413', { 'x-as': 'doctor' }, JSON.stringify({ kunjunganId: ROW.id, note: 'x'.repeat(MAX_BODY) })],
    ['a body past the limit without a principal: 401', {}, JSON.stringify({ note: 'x'.repeat(MAX_BODY) })],
    ['the database away: 503 with Retry-After', { 'x-as': 'doctor', 'x-db': 'down' }, pulse],
    ['a bug: 500 that says nothing', { 'x-as': 'doctor', 'x-db': 'bug' }, pulse],
  ];
  for (const [name, headers, body] of cases) {
    test(name, async () => {
      const init: RequestInit = body === undefined ? { method: 'POST' } : { method: 'POST', body };
      const { adapter, fast, tookIt } = await both('/trpc/vital.record', { ...json, ...headers }, init);
      assert.ok(tookIt, 'answered by the single-call path');
      assert.deepEqual(fast, adapter);
      const status = Number(/: (\d{3})/.exec(name)?.[1] ?? 200);
      assert.equal(fast.status, status, fast.body);
    });
  }
});

describe('left to the adapter', () => {
  const cases: Array<[string, string, Record<string, string>, RequestInit?]> = [
    ['a batch', `/trpc/pasien.list,pasien.list?batch=1&input=${encodeURIComponent('{"0":{},"1":{}}')}`, { 'x-as': 'doctor' }],
    ['a batch of one', `/trpc/pasien.list?batch=1&input=${encodeURIComponent('{"0":{}}')}`, { 'x-as': 'doctor' }],
    ['a mutation by GET: 405', '/trpc/pasien.create', { 'x-as': 'doctor' }],
    ['a query by POST: 405', '/trpc/pasien.list', { 'x-as': 'doctor', 'content-type': 'application/json' }, { method: 'POST', body: '{}' }],
    [
      'a mutation with its input in the query',
      '/trpc/vital.record?input=%7B%7D',
      { 'x-as': 'doctor', 'content-type': 'application/json' },
      { method: 'POST' },
    ],
    ['an unknown procedure: 404', '/trpc/pasien.nope', { 'x-as': 'doctor' }],
    ['a percent-encoded path', '/trpc/pasien%2Elist', { 'x-as': 'doctor' }],
    ['a streaming accept header', list({ limit: 20 }), { 'x-as': 'doctor', 'trpc-accept': 'application/jsonl' }],
    ['HEAD', list({ limit: 20 }), { 'x-as': 'doctor' }, { method: 'HEAD' }],
    ['a body type on a GET', list({ limit: 20 }), { 'x-as': 'doctor', 'content-type': 'text/plain' }],
  ];
  for (const [name, path, headers, init] of cases) {
    test(name, async () => {
      const { adapter, fast, tookIt } = await both(path, headers, init);
      assert.equal(tookIt, false);
      assert.equal(fast.status, adapter.status);
    });
  }
});
