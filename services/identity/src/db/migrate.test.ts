import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrationConfig } from './migrate.ts';

test("the migration Job's settings: the database URL alone, in production too (as the chart runs it)", () => {
  const config = migrationConfig({ DATABASE_URL: 'postgres://migrator@db:5432/identity', NODE_ENV: 'production' });
  assert.equal(config.DATABASE_URL, 'postgres://migrator@db:5432/identity');
});
