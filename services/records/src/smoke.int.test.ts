import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newPasien, startRecords } from './testkit.ts';
import type { RecordsUnderTest } from './testkit.ts';

describe('smoke', () => {
  let r: RecordsUnderTest;
  before(async () => {
    r = await startRecords('smoke');
  });
  after(async () => {
    await r?.stop();
  });

  test('create, get, list', async () => {
    const admin = await r.principal('rs-demo', 'tenant_admin');
    const created = await r.mutate<{ result: { data: { id: string; noRm: string } } }>('pasien.create', newPasien(1), admin);
    console.log(JSON.stringify(created.body));
    assert.equal(created.status, 200);
    const got = await r.query('pasien.get', { id: created.body.result.data.id }, admin);
    console.log(JSON.stringify(got.body));
    const list = await r.query('pasien.list', { q: 'budi' }, admin);
    console.log(JSON.stringify(list.body));
    const list2 = await r.query('pasien.list', {}, admin);
    console.log(list2.status);
    const audit = await r.query('audit.list', {}, admin);
    console.log(JSON.stringify(audit.body));
    const doc = await fetch(`${r.url}/api/v1/openapi.json`);
    console.log(doc.status, (await doc.text()).slice(0, 300));
    const rest = await r.rest('GET', '/pasien?q=budi&limit=5', { principal: admin });
    console.log(rest.status, JSON.stringify(rest.body).slice(0, 300));
    const rest2 = await r.rest('GET', '/pasien?limit=abc', { principal: admin });
    console.log(rest2.status, JSON.stringify(rest2.body).slice(0, 400));
  });
});
