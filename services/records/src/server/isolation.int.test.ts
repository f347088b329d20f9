// Tenant isolation: everything rs-lain can try against rs-demo's ids, filters and cursors returns
// nothing of rs-demo (patients, and clinical entries on tRPC and REST: a 404 like an id that never
// existed), and the application role with no tenant set sees no patient row at all.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { procedureTypes } from '../shims/index.ts';
import {
  assertEnvelope,
  chart,
  clinicalCalls,
  countRows,
  dataOf,
  loadCodes,
  newPasien,
  restCaller,
  startRecords,
} from '../testing/index.ts';
import type { Chart, RecordsUnderTest } from '../testing/index.ts';
import { appRouter } from './router.ts';

const served = procedureTypes(appRouter);

interface P {
  id: string;
  noRm: string;
  nik: string;
  nama: string;
  tanggalLahir: string;
}
interface Page {
  items: P[];
  nextCursor: string | null;
}

describe('tenant isolation', () => {
  let r: RecordsUnderTest;
  let demoAdmin: string;
  let lainAdmin: string;
  const demo: P[] = [];
  let lainOwn: P;

  before(async () => {
    r = await startRecords('isolation');
    demoAdmin = await r.principal('rs-demo', 'tenant_admin');
    lainAdmin = await r.principal('rs-lain', 'tenant_admin');
    for (let i = 1; i <= 3; i++)
      demo.push(
        dataOf<P>(await r.mutate('pasien.create', newPasien(i, { nama: `Zulkarnain Demo ${['Satu', 'Dua', 'Tiga'][i - 1]}` }), demoAdmin)),
      );
    lainOwn = dataOf<P>(await r.mutate('pasien.create', newPasien(50), lainAdmin));
  });
  after(async () => {
    await r?.stop();
  });

  const demoIds = () => new Set(demo.map((p) => p.id));
  const noDemo = (page: Page) => {
    for (const item of page.items) assert.ok(!demoIds().has(item.id), `rs-lain saw rs-demo's patient ${item.id}`);
  };

  test("rs-lain cannot read, change or archive rs-demo's patients by id: NOT_FOUND, like an id that never existed", async () => {
    for (const p of demo) {
      const got = assertEnvelope(await r.query('pasien.get', { id: p.id }, lainAdmin), 404, 'NOT_FOUND');
      const missing = assertEnvelope(await r.query('pasien.get', { id: '00000000-0000-4000-8000-000000000000' }, lainAdmin), 404);
      assert.equal(got.message, missing.message, 'no hint that the id exists elsewhere');
      assertEnvelope(await r.mutate('pasien.update', { id: p.id, alamat: 'Jl. Diambil Alih No. 1' }, lainAdmin), 404, 'NOT_FOUND');
      assertEnvelope(await r.mutate('pasien.archive', { id: p.id, reason: 'cross tenant' }, lainAdmin), 404, 'NOT_FOUND');
      assertEnvelope(await r.rest('GET', `/pasien/${p.id}`, { principal: lainAdmin }), 404, 'NOT_FOUND');
      assertEnvelope(await r.rest('PATCH', `/pasien/${p.id}`, { principal: lainAdmin, body: { alamat: 'Jl. X No. 1' } }), 404, 'NOT_FOUND');
    }
    const rows = await r.owner.query(
      "select count(*)::int as n from records.pasien where tenant_id = 'rs-demo' and (version <> 1 or status <> 'active')",
    );
    assert.equal(rows.rows[0].n, 0, "rs-demo's rows are untouched");
  });

  test("rs-demo's filters give rs-lain nothing of rs-demo", async () => {
    const d = demo[0]!;
    const filters = [
      {},
      { nik: d.nik },
      { noRm: d.noRm },
      { q: 'zulkarnain' },
      { q: d.nama },
      { tanggalLahir: d.tanggalLahir },
      { status: 'all' },
      { status: 'archived' },
    ];
    for (const filter of filters) {
      const page = dataOf<Page>(await r.query('pasien.list', filter, lainAdmin));
      noDemo(page);
    }
    assert.deepEqual(dataOf<Page>(await r.query('pasien.list', { nik: d.nik }, lainAdmin)).items, []);
    assert.deepEqual(dataOf<Page>(await r.query('pasien.list', { q: 'zulkarnain' }, lainAdmin)).items, []);
    // rs-lain's own patient is there: the filters work, they just never cross tenants.
    assert.deepEqual(
      dataOf<Page>(await r.query('pasien.list', { nik: lainOwn.nik }, lainAdmin)).items.map((p) => p.id),
      [lainOwn.id],
    );
  });

  test("rs-demo's cursors are refused for rs-lain", async () => {
    for (const input of [{ limit: 1 }, { q: 'zulkarnain', limit: 1 }]) {
      const page = dataOf<Page>(await r.query('pasien.list', input, demoAdmin));
      assert.ok(page.nextCursor, 'rs-demo gets a next page');
      assertEnvelope(await r.query('pasien.list', { ...input, cursor: page.nextCursor }, lainAdmin), 400, 'BAD_REQUEST');
    }
    const auditPage = dataOf<{ nextCursor: string | null }>(await r.query('audit.list', { limit: 1 }, demoAdmin));
    assert.ok(auditPage.nextCursor);
    assertEnvelope(await r.query('audit.list', { cursor: auditPage.nextCursor }, lainAdmin), 400, 'BAD_REQUEST');
  });

  test('a NIK taken in rs-demo is free in rs-lain (no cross-tenant 409 oracle)', async () => {
    const d = demo[1]!;
    const same = newPasien(2, { nama: 'Orang Lain' });
    assert.equal(same.nik, d.nik);
    const created = dataOf<P>(await r.mutate('pasien.create', same, lainAdmin));
    assert.notEqual(created.id, d.id);
    assertEnvelope(await r.mutate('pasien.create', newPasien(2), lainAdmin), 409, 'CONFLICT');
  });

  test("rs-lain's audit log holds nothing of rs-demo", async () => {
    const all = dataOf<{ items: { actorUserId: string; pasienIds: string[] }[] }>(await r.query('audit.list', { limit: 200 }, lainAdmin));
    assert.ok(all.items.length > 0);
    for (const entry of all.items) {
      assert.ok(!entry.actorUserId.includes('rs-demo'));
      for (const id of entry.pasienIds) assert.ok(!demoIds().has(id));
    }
    const byPatient = dataOf<{ items: unknown[] }>(await r.query('audit.list', { pasienId: demo[0]!.id }, lainAdmin));
    assert.deepEqual(byPatient.items, []);
  });

  test('the application role with no tenant set sees no row; with a tenant, only that tenant', async () => {
    const app = new pg.Client({ connectionString: r.appUrl });
    await app.connect();
    try {
      const me = await app.query('select current_user as u, rolsuper, rolbypassrls from pg_roles where rolname = current_user');
      assert.deepEqual(me.rows[0], { u: 'records_app', rolsuper: false, rolbypassrls: false });
      for (const table of ['records.pasien', 'records.pasien_nama', 'records.rm_counter', 'records.audit_log']) {
        const { rows } = await app.query(`select count(*)::int as n from ${table}`);
        assert.equal(rows[0].n, 0, `${table} with no tenant`);
      }
      assert.ok((await r.owner.query('select count(*)::int as n from records.pasien')).rows[0].n >= 5, 'the rows do exist');
      await app.query('begin');
      await app.query("select set_config('app.tenant_id', 'rs-lain', true)");
      const tenants = await app.query('select distinct tenant_id from records.pasien');
      assert.deepEqual(tenants.rows, [{ tenant_id: 'rs-lain' }]);
      await assert.rejects(
        app.query(
          `insert into records.pasien (tenant_id, no_rm, nik, nama, tempat_lahir, tanggal_lahir, jenis_kelamin, alamat, kota_kabupaten, provinsi, created_by, updated_by)
           values ('rs-demo', '99999999', '3273051708850012', 'Penyusup', 'X', '1985-08-17', 'L', 'X', 'X', 'X', 'x', 'x')`,
        ),
        /row-level security/,
      );
      await app.query('rollback');
      await app.query('begin');
      await app.query("select set_config('app.tenant_id', 'rs-lain', true)");
      const moved = await app.query("update records.pasien set tenant_id = 'rs-demo' where false returning id");
      assert.equal(moved.rowCount, 0);
      await assert.rejects(app.query(`update records.pasien set tenant_id = 'rs-demo' where id = $1`, [lainOwn.id]), /row-level security/);
      await app.query('rollback');
      // The setting is transaction-local: after the transaction the connection sees nothing again.
      assert.equal((await app.query('select count(*)::int as n from records.pasien')).rows[0].n, 0);
    } finally {
      await app.end();
    }
  });

  test("rs-demo's clinical entries are never returned, counted or changed for rs-lain: 404 on tRPC and REST, like a missing id", async () => {
    await loadCodes(r);
    const rest = await restCaller(r);
    // The same user id works at a clinic in each hospital: only the tenant tells them apart.
    const clinic = async (admin: string) =>
      dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    const [demoPoli, lainPoli] = [await clinic(demoAdmin), await clinic(lainAdmin)];
    const demoDoctor = await r.principal('rs-demo', 'doctor', { userId: 'dr-ani' });
    const lainDoctor = await r.principal('rs-lain', 'doctor', { userId: 'dr-ani' });
    dataOf(await r.mutate('poli.assign', { poliId: demoPoli, userId: 'dr-ani' }, demoAdmin));
    dataOf(await r.mutate('poli.assign', { poliId: lainPoli, userId: 'dr-ani' }, lainAdmin));
    const theirs = await chart(r, 900, demoPoli, demoDoctor);
    const own = await chart(r, 901, lainPoli, lainDoctor, 'rs-lain');
    const u = (i: number) => `00000000-0000-4000-8000-00000000000${i}`;
    const ghost: Chart = { pasienId: u(1), visit: u(2), ids: { vital: u(3), diagnosis: u(4), alergi: u(5), catatan: u(6) } };
    const versions = await countRows(r.owner, 'records.klinis_versi', "tenant_id = 'rs-demo'");
    const missing = new Map(clinicalCalls(ghost, (x) => served.has(x)));
    for (const [name, input] of clinicalCalls(theirs, (x) => served.has(x))) {
      const call = served.get(name) === 'query' ? r.query.bind(r) : r.mutate.bind(r);
      for (const [reply, never] of [
        [await call(name, input, lainDoctor), await call(name, missing.get(name), lainDoctor)],
        [await rest(name, input, lainDoctor), await rest(name, missing.get(name)!, lainDoctor)],
      ])
        assert.equal(assertEnvelope(reply!, 404, 'NOT_FOUND').message, assertEnvelope(never!, 404).message, `${name}: no hint`);
    }
    assert.equal(await countRows(r.owner, 'records.klinis_versi', "tenant_id = 'rs-demo'"), versions, "rs-demo's entries untouched");
    assert.equal(await countRows(r.owner, 'records.klinis', "tenant_id = 'rs-demo' and version <> 1"), 0);
    // rs-lain's own chart works, and holds nothing of rs-demo's.
    const timeline = dataOf<{ items: { id: string; vital: { id: string }[] }[] }>(
      await r.query('klinis.riwayat', { pasienId: own.pasienId }, lainDoctor),
    );
    assert.deepEqual(
      timeline.items.map((v) => [v.id, v.vital.map((e) => e.id)]),
      [[own.visit, [own.ids.vital]]],
    );
    const lainAudit = await countRows(r.owner, 'records.audit_log', "tenant_id = 'rs-lain' and $1 = any(pasien_ids)", [theirs.pasienId]);
    assert.equal(lainAudit, 0, "rs-lain's audit trail never names rs-demo's patient");
  });
});
