// The development code list in the seed: loaded into an empty table, never over a list already there.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { loadCodes } from '../kode/index.ts';
import { migratedDatabase } from '../testing/index.ts';
import type { MigratedDatabase } from '../testing/index.ts';
import { seedCodes } from './seed-codes.ts';

let db: MigratedDatabase;
let owner: pg.Client;

before(async () => {
  db = await migratedDatabase('seed_codes');
  owner = db.owner;
});
after(async () => {
  await db?.drop();
});

const count = async (where = 'true') =>
  (await owner.query<{ n: number }>(`select count(*)::int as n from records.kode where system = 'icd-10' and ${where}`)).rows[0]!.n;

test('the seed loads the development list into an empty table, once', async () => {
  const added = await seedCodes(owner);
  assert.ok(added >= 90, `${added} codes`);
  assert.equal(await count('active'), added);
  assert.equal(await seedCodes(owner), 0);
  assert.equal(await count(), added);
});

test('a list the operator loaded is never replaced by the development one', async () => {
  await loadCodes(owner, 'icd-10', [{ code: 'I10', displayEn: 'Essential (primary) hypertension', displayId: 'Hipertensi esensial' }]);
  assert.equal(await seedCodes(owner), 0);
  assert.equal(await count('active'), 1);
});
