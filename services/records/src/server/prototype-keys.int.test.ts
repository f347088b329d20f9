// Names every JavaScript object inherits (constructor, toString, __proto__, ...) sent where records
// expects a name of its own: REST query keys and path segments, FHIR `_sort` values, search parameter
// names and path segments, JSON body keys. A lookup by such a name in a plain object finds the inherited
// member instead of nothing; every answer here must be a 4xx or 2xx in the surface's own error shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertEnvelope, assertOutcome, dataOf, fhirCall, newPasien, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

describe('prototype member names as input', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let id: string;

  before(async () => {
    r = await startRecords('protokeys');
    admin = await r.principal('rs-demo', 'tenant_admin');
    id = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(1), admin)).id;
  });
  after(async () => {
    await r?.stop();
  });

  test('REST query keys: 401 without a credential, 400 naming the key with one', async () => {
    for (const name of NAMES) {
      for (const path of [`/pasien?${name}=x`, `/pasien/${id}?${name}=1`, `/audit?${name}=1`, `/pasien?limit=5&${name}=1`]) {
        assertEnvelope(await r.rest('GET', path), 401, 'UNAUTHORIZED');
        const e = assertEnvelope(await r.rest('GET', path, { principal: admin }), 400, 'BAD_REQUEST');
        assert.ok(e.message.includes(name), `${path}: the message names ${name}: ${e.message}`);
      }
      // The health check takes no input: what the query says does not matter.
      assert.equal((await r.rest('GET', `/health?${name}=1`)).status, 200, `/health?${name}=1`);
    }
  });

  test('REST path segments and JSON body keys', async () => {
    for (const name of NAMES) {
      assertEnvelope(await r.rest('GET', `/${name}`, { principal: admin }), 404, 'NOT_FOUND');
      assertEnvelope(await r.rest('GET', `/pasien/${name}`, { principal: admin }), 400, 'BAD_REQUEST');
      assertEnvelope(await r.rest('POST', `/pasien/${name}/archive`, { principal: admin, body: { reason: 'x' } }), 400, 'BAD_REQUEST');
      const body = `{"${name}":1,"nama":"Budi"}`;
      assertEnvelope(await r.rest('POST', '/pasien', { principal: admin, raw: body }), 400, 'BAD_REQUEST');
      assertEnvelope(await r.rest('PATCH', `/pasien/${id}`, { principal: admin, raw: body }), 400, 'BAD_REQUEST');
      const trpc = await fetch(`${r.url}/trpc/pasien.update`, {
        method: 'POST',
        headers: { 'x-simrs-principal': admin, 'content-type': 'application/json' },
        body: `{"id":"${id}","${name}":1}`,
      });
      assert.equal(trpc.status, 400, `tRPC body key ${name}`);
      assertEnvelope(await r.query(`pasien.${name}`, {}, admin), 404, 'NOT_FOUND');
    }
  });

  test('FHIR: _sort, search parameter names and path segments', async () => {
    for (const name of NAMES) {
      assertOutcome(await fhirCall(r, 'GET', `/Patient?_sort=${name}`, { principal: admin }), 400, 'not-supported');
      assertOutcome(await fhirCall(r, 'GET', `/Patient?_sort=-${name}`, { principal: admin }), 400, 'not-supported');
      const lenient = await fhirCall(r, 'GET', `/Patient?${name}=x`, { principal: admin });
      assert.equal(lenient.status, 200, `${name} as a search parameter is ignored`);
      assert.equal(lenient.body.resourceType, 'Bundle');
      const strict = await fhirCall(r, 'GET', `/Patient?${name}=x`, { principal: admin, headers: { prefer: 'handling=strict' } });
      assertOutcome(strict, 400, 'not-supported');
      for (const path of [`/${name}`, `/Patient/${name}`, `/Patient/${id}/_history/${name}`, `/Patient/${id}/${name}`]) {
        const reply = await fhirCall(r, 'GET', path, { principal: admin });
        assert.ok(reply.status >= 400 && reply.status < 500, `GET ${path}: ${reply.status}`);
        assert.equal(reply.body.resourceType, 'OperationOutcome');
      }
    }
  });
});
