// The audit trail: each procedure that touches patient data leaves exactly its row (actor, tenant,
// action, patient ids, time, request id, trace id, OAuth client), failures leave none, and the
// application role can only append and read audit rows.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assertEnvelope, dataOf, newPasien, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

interface AuditRow {
  tenant_id: string;
  actor_user_id: string;
  actor_role: string;
  client_id: string | null;
  action: string;
  pasien_ids: string[];
  request_id: string | null;
  trace_id: string | null;
  details: Record<string, unknown>;
  occurred_at: Date;
}

describe('audit trail', () => {
  let r: RecordsUnderTest;
  let lastId = 0;

  before(async () => {
    r = await startRecords('audit');
  });
  after(async () => {
    await r?.stop();
  });

  /** The audit rows written since the previous call (as the owner sees them: all tenants). */
  async function newRows(): Promise<AuditRow[]> {
    const { rows } = await r.owner.query<AuditRow & { id: string }>(
      'select id, tenant_id, actor_user_id, actor_role, client_id, action, pasien_ids::text[] as pasien_ids, request_id, trace_id, details, occurred_at from records.audit_log where id > $1 order by id',
      [lastId],
    );
    if (rows.length) lastId = Number(rows[rows.length - 1]!.id);
    return rows.map(({ id: _id, ...row }) => row);
  }

  function traced() {
    const traceId = randomBytes(16).toString('hex');
    const requestId = randomUUID();
    return {
      traceId,
      requestId,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`, 'x-request-id': requestId },
    };
  }

  test("each procedure appends exactly its row, in the caller's tenant, with request, trace and client ids", async () => {
    const clerk = await r.principal('rs-demo', 'registration_clerk', { userId: 'user-clerk', clientId: 'client-his' });
    const admin = await r.principal('rs-demo', 'tenant_admin', { userId: 'user-admin' });
    await newRows();
    const started = Date.now();

    let t = traced();
    const created = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(1, { golonganDarah: 'O' }), clerk, t.headers));
    let rows = await newRows();
    assert.equal(rows.length, 1);
    assert.deepEqual(
      { ...rows[0], occurred_at: undefined },
      {
        tenant_id: 'rs-demo',
        actor_user_id: 'user-clerk',
        actor_role: 'registration_clerk',
        client_id: 'client-his',
        action: 'pasien.create',
        pasien_ids: [created.id],
        request_id: t.requestId,
        trace_id: t.traceId,
        details: {
          fields: [
            'nik',
            'nama',
            'tempatLahir',
            'tanggalLahir',
            'jenisKelamin',
            'golonganDarah',
            'alamat',
            'kotaKabupaten',
            'provinsi',
            'telepon',
          ],
        },
        occurred_at: undefined,
      },
    );
    assert.ok(rows[0]!.occurred_at.getTime() >= started - 5_000 && rows[0]!.occurred_at.getTime() <= Date.now() + 5_000);

    t = traced();
    dataOf(await r.query('pasien.get', { id: created.id }, clerk, t.headers));
    rows = await newRows();
    assert.deepEqual(
      rows.map((x) => [x.action, x.pasien_ids, x.request_id, x.trace_id]),
      [['pasien.get', [created.id], t.requestId, t.traceId]],
    );

    const second = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(2), clerk));
    await newRows();
    t = traced();
    const page = dataOf<{ items: { id: string }[] }>(await r.query('pasien.list', { limit: 10 }, clerk, t.headers));
    rows = await newRows();
    assert.deepEqual(
      page.items.map((p) => p.id),
      [second.id, created.id],
    );
    assert.deepEqual(
      rows.map((x) => [x.action, x.pasien_ids, x.details]),
      [['pasien.list', [second.id, created.id], { filters: [], status: 'active' }]],
    );

    const one = dataOf<{ items: { id: string }[] }>(await r.query('pasien.list', { limit: 1, q: 'test' }, clerk));
    rows = await newRows();
    assert.deepEqual(
      rows.map((x) => [x.action, x.pasien_ids]),
      [['pasien.list', one.items.map((p) => p.id)]],
      'only the rows returned, not the look-ahead',
    );

    dataOf(await r.query('pasien.list', { nik: '3100000000000000' }, clerk));
    rows = await newRows();
    assert.deepEqual(
      rows.map((x) => [x.action, x.pasien_ids]),
      [['pasien.list', []]],
      'an empty result is audited too',
    );

    t = traced();
    dataOf(await r.mutate('pasien.update', { id: created.id, alamat: 'Jl. Baru No. 2', golonganDarah: 'O' }, clerk, t.headers));
    rows = await newRows();
    assert.deepEqual(
      rows.map((x) => [x.action, x.pasien_ids, x.details, x.trace_id]),
      [['pasien.update', [created.id], { fields: ['alamat'] }, t.traceId]],
    );

    dataOf(await r.mutate('pasien.archive', { id: second.id, reason: 'duplicate registration' }, admin));
    rows = await newRows();
    assert.deepEqual(
      rows.map((x) => [x.action, x.actor_user_id, x.actor_role, x.client_id, x.pasien_ids]),
      [['pasien.archive', 'user-admin', 'tenant_admin', null, [second.id]]],
    );

    const audit = dataOf<{ items: { action: string }[] }>(await r.query('audit.list', { limit: 100 }, admin));
    rows = await newRows();
    assert.deepEqual(
      rows.map((x) => [x.action, x.pasien_ids]),
      [['audit.list', []]],
    );
    assert.deepEqual(
      audit.items.map((i) => i.action),
      ['pasien.archive', 'pasien.update', 'pasien.list', 'pasien.list', 'pasien.list', 'pasien.create', 'pasien.get', 'pasien.create'],
      'newest first, and the audit.list call does not see its own row',
    );
  });

  test('refused and failed calls leave no audit row', async () => {
    const nurse = await r.principal('rs-demo', 'nurse');
    const clerk = await r.principal('rs-demo', 'registration_clerk');
    const id = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(3), clerk)).id;
    await newRows();
    assertEnvelope(await r.mutate('pasien.archive', { id, reason: 'x' }, nurse), 403);
    assertEnvelope(await r.query('pasien.get', { id: '00000000-0000-4000-8000-000000000000' }, nurse), 404);
    assertEnvelope(await r.mutate('pasien.create', newPasien(3), clerk), 409);
    assertEnvelope(await r.mutate('pasien.update', { id, nik: '1' }, clerk), 400);
    assertEnvelope(await r.query('pasien.list', {}), 401);
    assert.deepEqual(await newRows(), []);
  });

  test('audit.list filters and pages', async () => {
    const admin = await r.principal('rs-demo', 'tenant_admin', { userId: 'user-filter' });
    const clerk = await r.principal('rs-demo', 'registration_clerk', { userId: 'user-filter-clerk' });
    const id = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(4), clerk)).id;
    dataOf(await r.query('pasien.get', { id }, clerk));
    dataOf(await r.query('pasien.get', { id }, clerk));
    const byPatient = dataOf<{ items: { action: string; pasienIds: string[] }[] }>(await r.query('audit.list', { pasienId: id }, admin));
    assert.deepEqual(
      byPatient.items.map((i) => i.action),
      ['pasien.get', 'pasien.get', 'pasien.create'],
    );
    const byActor = dataOf<{ items: { actorUserId: string }[] }>(
      await r.query('audit.list', { actorUserId: 'user-filter-clerk', action: 'pasien.get' }, admin),
    );
    assert.equal(byActor.items.length, 2);
    const future = dataOf<{ items: unknown[] }>(await r.query('audit.list', { from: '2999-01-01T00:00:00Z' }, admin));
    assert.deepEqual(future.items, []);
    const first = dataOf<{ items: { id: number }[]; nextCursor: string }>(await r.query('audit.list', { pasienId: id, limit: 2 }, admin));
    const next = dataOf<{ items: { id: number }[]; nextCursor: string | null }>(
      await r.query('audit.list', { pasienId: id, limit: 2, cursor: first.nextCursor }, admin),
    );
    assert.equal(first.items.length, 2);
    assert.equal(next.items.length, 1);
    assert.equal(next.nextCursor, null);
    assert.ok(next.items[0]!.id < first.items[1]!.id);
    const rest = await r.rest('GET', `/audit?pasienId=${id}&action=pasien.create`, { principal: admin });
    assert.equal(rest.status, 200);
    assert.equal((rest.body as { items: unknown[] }).items.length, 1);
  });

  test('the application role can only append and read audit rows; nobody can change them', async () => {
    const app = new pg.Client({ connectionString: r.appUrl });
    await app.connect();
    const inTenant = async (sql: string, params: unknown[] = []) => {
      await app.query('begin');
      try {
        await app.query("select set_config('app.tenant_id', 'rs-demo', true)");
        return await app.query(sql, params);
      } finally {
        await app.query('rollback');
      }
    };
    try {
      assert.ok((await inTenant('select count(*)::int as n from records.audit_log')).rows[0].n > 0);
      await assert.rejects(inTenant("update records.audit_log set action = 'nothing'"), /permission denied/);
      await assert.rejects(inTenant('delete from records.audit_log'), /permission denied/);
      await assert.rejects(inTenant('truncate records.audit_log'), /permission denied/);
      await assert.rejects(inTenant('delete from records.pasien'), /permission denied/);
      await assert.rejects(inTenant('drop table records.audit_log'), /must be owner|permission denied/);
      await assert.rejects(inTenant('alter table records.pasien disable row level security'), /must be owner|permission denied/);
      await assert.rejects(inTenant('select * from schema_migrations'), /permission denied/);
      await assert.rejects(
        inTenant("insert into records.pasien_nama values ('rs-demo', 'x', gen_random_uuid(), 1, 'x')"),
        /permission denied/,
      );
      await assert.rejects(
        inTenant("insert into records.audit_log (tenant_id, actor_user_id, actor_role, action) values ('rs-lain', 'x', 'x', 'forged')"),
        /row-level security/,
      );
      const appended = await inTenant(
        "insert into records.audit_log (actor_user_id, actor_role, action) values ('x', 'x', 'probe') returning tenant_id",
      );
      assert.equal(appended.rows[0].tenant_id, 'rs-demo');
    } finally {
      await app.end();
    }
    // Even the owner cannot rewrite history: the table refuses UPDATE, DELETE and TRUNCATE.
    await assert.rejects(r.owner.query("update records.audit_log set action = 'x'"), /append-only/);
    await assert.rejects(r.owner.query('delete from records.audit_log'), /append-only/);
    await assert.rejects(r.owner.query('truncate records.audit_log'), /append-only/);
  });
});
