// Row-level security holds under an operator's defaults only if the role records runs as can neither own
// a table (owners skip policies unless FORCE is set) nor bypass policies, and every tenant table forces
// its policies on the owner too (a managed Postgres often hands the application the owner's account).
// These checks read the catalogue of a migrated database with the service connected to it, so a
// migration that adds a table without FORCE (but the listed work queues), or a deployment that runs records as the owner, fails here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

/**
 * Work queues read across hospitals by the owner's SECURITY DEFINER claim functions, which answer ids
 * and counts only (docs/design.md): their policies bind the application role, not the owner. Any other
 * tenant table must force its policies.
 */
const OWNER_READS_ACROSS_TENANTS: Record<string, string> = {
  satusehat_outbox: 'records.satusehat_claim and the backlog metrics',
  export_job: 'records.export_claim and records.export_leaving',
};

/** Tables the service deletes from: an export's files, copies of the record that expire, never the record. */
const DERIVED_AND_EXPIRING: Record<string, 'DELETE'> = { export_job: 'DELETE', export_chunk: 'DELETE' };

describe('database roles and row-level security', () => {
  let r: RecordsUnderTest;

  before(async () => {
    r = await startRecords('roles');
  });
  after(async () => {
    await r?.stop();
  });

  test('every records table with a tenant_id has row-level security enabled and forced', async () => {
    const { rows } = await r.owner.query<{ table: string; enabled: boolean; forced: boolean }>(
      `select c.relname as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'records' and c.relkind in ('r', 'p')
          and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped)
        order by 1`,
    );
    assert.ok(rows.length >= 10, `tenant tables found: ${rows.map((t) => t.table).join(', ')}`);
    const loose = rows.filter((t) => !t.enabled || (!t.forced && !(t.table in OWNER_READS_ACROSS_TENANTS))).map((t) => t.table);
    assert.deepEqual(loose, [], 'tenant tables without ENABLE and FORCE ROW LEVEL SECURITY');
    const queues = rows.filter((t) => t.table in OWNER_READS_ACROSS_TENANTS);
    assert.deepEqual(
      queues.map((t) => [t.table, t.enabled]),
      Object.keys(OWNER_READS_ACROSS_TENANTS)
        .sort()
        .map((name) => [name, true]),
      'the work queues exist and bind the application role',
    );
  });

  test('records without a tenant_id are read-only to the application role', async () => {
    const { rows } = await r.owner.query<{ table: string }>(
      `select c.relname as table
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'records' and c.relkind in ('r', 'p')
          and not exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped)
          and (has_table_privilege('records_app', c.oid, 'INSERT') or has_table_privilege('records_app', c.oid, 'UPDATE')
               or has_table_privilege('records_app', c.oid, 'DELETE'))`,
    );
    assert.deepEqual(rows, [], 'shared tables the application role may change');
  });

  test('the role the running service connected as owns no table and cannot bypass row-level security', async () => {
    const { rows } = await r.owner.query<{ user: string; super: boolean; bypass: boolean; owns: number }>(
      `select distinct r.rolname as user, r.rolsuper as super, r.rolbypassrls as bypass,
              (select count(*)::int from pg_class c where c.relowner = r.oid
                  and c.relnamespace not in (select oid from pg_namespace where nspname in ('pg_catalog', 'information_schema'))) as owns
         from pg_stat_activity a join pg_roles r on r.rolname = a.usename
        where a.datname = current_database() and a.pid <> pg_backend_pid()`,
    );
    assert.ok(rows.length > 0, "the service's connections are visible");
    for (const role of rows) {
      assert.deepEqual({ ...role }, { user: role.user, super: false, bypass: false, owns: 0 }, `records connects as ${role.user}`);
    }
    assert.deepEqual(
      rows.map((role) => role.user),
      ['records_app'],
    );
  });

  test('the application role cannot delete from or truncate any records table but the expiring export files', async () => {
    const { rows } = await r.owner.query<{ table: string; del: boolean; truncate: boolean }>(
      `select c.relname as table, has_table_privilege('records_app', c.oid, 'DELETE') as del,
              has_table_privilege('records_app', c.oid, 'TRUNCATE') as truncate
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'records' and c.relkind in ('r', 'p')
          and (has_table_privilege('records_app', c.oid, 'DELETE') or has_table_privilege('records_app', c.oid, 'TRUNCATE'))
        order by 1`,
    );
    assert.deepEqual(
      rows.map((t) => [t.table, t.del, t.truncate]),
      Object.keys(DERIVED_AND_EXPIRING)
        .sort()
        .map((name) => [name, true, false]),
      'clinical data is never deleted by the service',
    );
  });
});
