// The integration interface: REST over the same procedures, the OpenAPI 3.1 document, the docs page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sessionCookieName } from '@simrs/contracts/cookie';
import { assertValidFhir } from '@simrs/platform/testing/fhir-validation';
import { pasienOutput, pasienPage } from '../pasien/index.ts';
import { assertEnvelope, dataOf, newPasien, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

describe('integration interface', () => {
  let r: RecordsUnderTest;
  before(async () => {
    r = await startRecords('openapi', { INTEGRATION_PREFIX: '/integrasi/v1' });
  });
  after(async () => {
    await r?.stop();
  });

  test('the OpenAPI 3.1 document lists every procedure with the envelope for errors', async () => {
    const res = await fetch(`${r.url}/integrasi/v1/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            security?: unknown[];
            responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
          }
        >
      >;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
    };
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.servers, [{ url: '/integrasi/v1' }]);
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    // The clinical entries: the same five operations for every kind.
    const klinis = ['vital', 'diagnosis', 'alergi', 'catatan'].flatMap((k) => [
      `GET /klinis/${k} ${k}-list`,
      `GET /klinis/${k}/{id}/history ${k}-history`,
      `POST /klinis/${k} ${k}-record`,
      `POST /klinis/${k}/{id}/amend ${k}-amend`,
      `POST /klinis/${k}/{id}/entered-in-error ${k}-retract`,
    ]);
    assert.deepEqual(
      ops.sort(),
      [
        ...klinis,
        'GET /audit audit-list',
        'GET /btg btg-list',
        'GET /health healthCheck',
        'GET /klinis/{pasienId}/riwayat klinis-riwayat',
        'GET /kode/icd-10 kode-search',
        'GET /kunjungan kunjungan-list',
        'GET /kunjungan/{id} kunjungan-get',
        'GET /pasien pasien-list',
        'GET /pasien/{id} pasien-get',
        'GET /pengaturan pengaturan-get',
        'GET /poli poli-list',
        'GET /poli/staff poli-staff',
        'PATCH /pasien/{id} pasien-update',
        'PATCH /pengaturan pengaturan-update',
        'PATCH /poli/{id} poli-update',
        'POST /btg btg-open',
        'POST /kunjungan kunjungan-register',
        'POST /kunjungan/{id}/arrive kunjungan-arrive',
        'POST /kunjungan/{id}/cancel kunjungan-cancel',
        'POST /kunjungan/{id}/finish kunjungan-finish',
        'POST /kunjungan/{id}/start kunjungan-start',
        'POST /pasien pasien-create',
        'POST /pasien/{id}/archive pasien-archive',
        'POST /poli poli-create',
        'POST /poli/{poliId}/assign poli-assign',
        'POST /poli/{poliId}/unassign poli-unassign',
        'GET /satusehat/connection satusehat-connection',
        'POST /satusehat/connection satusehat-connect',
        'POST /satusehat/connection/test satusehat-test',
        'POST /satusehat/practitioner satusehat-practitioner',
        'GET /satusehat/outbox satusehat-list',
        'GET /satusehat/visit/{kunjunganId} satusehat-status',
        'POST /satusehat/visit/{kunjunganId}/resend satusehat-resend',
      ].sort(),
    );
    assert.ok(doc.components.schemas.ErrorEnvelope);
    assert.deepEqual(
      Object.keys(doc.components.schemas).filter((k) => k.startsWith('error.')),
      [],
    );
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['bearer', 'session']);
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (status !== '200') assert.equal(response.content?.['application/json']?.schema.$ref, '#/components/schemas/ErrorEnvelope');
        }
      }
    }
    assert.equal(doc.paths['/health']!.get!.security, undefined, 'health is public');
    assert.ok(doc.paths['/pasien']!.get!.security?.length);
  });

  test('the session scheme names the cookie sign-in sets, and says when it carries the __Secure- prefix', async () => {
    const doc = (await (await fetch(`${r.url}/integrasi/v1/openapi.json`)).json()) as {
      components: { securitySchemes: Record<string, { type: string; in?: string; name?: string; description?: string }> };
    };
    const session = doc.components.securitySchemes.session!;
    assert.equal(session.in, 'cookie');
    // This records has no PUBLIC_URL: the document names the cookie of a site served over http.
    assert.equal(session.name, sessionCookieName('http://localhost:8080'));
    assert.ok(session.description?.includes(sessionCookieName('https://rs.example')), session.description);
  });

  test('the docs page is self-contained HTML listing the operations', async () => {
    const res = await fetch(`${r.url}/integrasi/v1/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await res.text();
    for (const op of ['GET /integrasi/v1/pasien', 'POST /integrasi/v1/pasien/{id}/archive', 'GET /integrasi/v1/audit'])
      assert.ok(html.includes(op), op);
    assert.doesNotMatch(html, /<script|https?:\/\/(?!localhost)/);
    // It links the FHIR CapabilityStatement, which lives under the same prefix.
    assert.ok(html.includes('href="/integrasi/v1/fhir/metadata"'));
    const cs = await fetch(`${r.url}/integrasi/v1/fhir/metadata`);
    assert.equal(cs.status, 200);
    assert.equal(assertValidFhir((await cs.json()) as { resourceType: string }).resourceType, 'CapabilityStatement');
  });

  test('REST calls the same procedures, with the same guards and the envelope for errors', async () => {
    const clerk = await r.principal('rs-demo', 'registration_clerk');
    const admin = await r.principal('rs-demo', 'tenant_admin');
    const created = await r.rest('POST', '/pasien', { principal: clerk, body: newPasien(1) });
    assert.equal(created.status, 200);
    const id = (created.body as { id: string; noRm: string }).id;
    assert.equal((created.body as { noRm: string }).noRm, '00000001');
    const got = await r.rest('GET', `/pasien/${id}`, { principal: clerk });
    assert.equal((got.body as { id: string }).id, id);
    const updated = await r.rest('PATCH', `/pasien/${id}`, {
      principal: clerk,
      body: { alamat: 'Jl. Sudirman No. 5', expectedVersion: 1 },
    });
    assert.equal(updated.status, 200);
    assert.equal((updated.body as { version: number }).version, 2);
    const list = await r.rest('GET', `/pasien?q=budi&limit=5`, { principal: clerk });
    assert.deepEqual(
      (list.body as { items: { id: string }[] }).items.map((p) => p.id),
      [id],
    );
    assertEnvelope(await r.rest('POST', `/pasien/${id}/archive`, { principal: clerk, body: { reason: 'duplikat' } }), 403, 'FORBIDDEN');
    const archived = await r.rest('POST', `/pasien/${id}/archive`, { principal: admin, body: { reason: 'duplikat' } });
    assert.equal((archived.body as { status: string }).status, 'archived');
    assertEnvelope(await r.rest('POST', `/pasien/${id}/archive`, { principal: admin, body: { reason: 'lagi' } }), 409, 'CONFLICT');
    const ids = async (query: string) =>
      ((await r.rest('GET', `/pasien${query}`, { principal: clerk })).body as { items: { id: string }[] }).items.map((p) => p.id);
    assert.deepEqual(await ids(''), [], 'archived patients leave the default listing');
    assert.deepEqual(await ids('?status=archived'), [id]);
    assert.deepEqual(await ids('?status=all&q=budi'), [id]);
    assertEnvelope(await r.rest('PATCH', `/pasien/${id}`, { principal: admin, body: { alamat: 'Jl. X No. 1' } }), 409, 'CONFLICT');
    const e = assertEnvelope(await r.rest('GET', '/pasien'), 401, 'UNAUTHORIZED');
    assert.equal(e.data.path, 'pasien.list');
    assertEnvelope(await r.rest('GET', '/audit', { principal: clerk }), 403, 'FORBIDDEN');
  });

  test('every pasien answer is exactly what its schema documents (tRPC does not re-parse it: builtOutput)', async () => {
    const admin = await r.principal('rs-demo', 'tenant_admin');
    // Every optional field filled, so that each column's type reaches the schema.
    const full = {
      ...newPasien(7),
      golonganDarah: 'AB',
      rhesus: '-',
      agama: 'Islam',
      statusPerkawinan: 'Kawin',
      pekerjaan: 'Guru',
      namaIbu: 'Ibu Test',
      rt: '001',
      rw: '002',
      kelurahan: 'Cihapit',
      kecamatan: 'Bandung Wetan',
      kodePos: '40114',
      noBpjs: '0001234567890',
    };
    const exact = (schema: { parse(v: unknown): unknown }, data: unknown, what: string) =>
      // parse strips keys the schema does not know and fails on a wrong type: equal means exact.
      assert.deepEqual(schema.parse(data), data, what);
    const created = dataOf(await r.mutate('pasien.create', full, admin));
    exact(pasienOutput, created, 'pasien.create');
    const id = (created as { id: string }).id;
    exact(pasienOutput, dataOf(await r.query('pasien.get', { id }, admin)), 'pasien.get');
    exact(pasienOutput, dataOf(await r.mutate('pasien.update', { id, alamat: 'Jl. Braga No. 9' }, admin)), 'pasien.update');
    for (const input of [{ limit: 1 }, { q: 'budi', limit: 1 }, { nik: String((full as Record<string, unknown>).nik) }]) {
      exact(pasienPage, dataOf(await r.query('pasien.list', input, admin)), `pasien.list ${JSON.stringify(input)}`);
    }
    exact(pasienOutput, dataOf(await r.mutate('pasien.archive', { id, reason: 'duplikat' }, admin)), 'pasien.archive');
    exact(pasienPage, (await r.rest('GET', '/pasien?status=archived', { principal: admin })).body, 'REST pasien.list');
  });

  test('tRPC is served too, and unknown routes answer with the envelope', async () => {
    assert.deepEqual((await r.query('healthCheck', undefined)).body, { result: { data: null } });
    assertEnvelope(await r.rest('GET', '/tidak-ada'), 404, 'NOT_FOUND');
    const outside = await fetch(`${r.url}/api/v1/pasien`);
    assert.equal(outside.status, 404);
  });
});
