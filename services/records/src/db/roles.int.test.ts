// Row-level security holds under an operator's defaults only if the role records runs as can neither own
// a table (owners skip policies unless FORCE is set) nor bypass policies, and every tenant table forces
// its policies on the owner too (a managed Postgres often hands the application the owner's account).
// These checks read the catalogue of a migrated database with the service connected to it, so a
// migration that adds a table without FORCE, or a deployment that runs records as the owner, fails here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

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
    const loose = rows.filter((t) => !t.enabled || !t.forced).map((t) => t.table);
    assert.deepEqual(loose, [], 'tenant tables without ENABLE and FORCE ROW LEVEL SECURITY');
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

  test('the application role cannot delete from or truncate any records table', async () => {
    const { rows } = await r.owner.query<{ table: string }>(
      `select c.relname as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'records' and c.relkind in ('r', 'p')
          and (has_table_privilege('records_app', c.oid, 'DELETE') or has_table_privilege('records_app', c.oid, 'TRUNCATE'))`,
    );
    assert.deepEqual(rows, [], 'clinical data is never deleted by the service');
  });
});
