import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ROLES } from '@simrs/contracts/access';
import { GRANTS, PERMISSIONS, PROCEDURES, permissionTable, roleMay } from './permissions.ts';

test("the README's permission table is the one rendered from the data", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const match = /<!-- permissions:start -->\n([\s\S]*?)\n<!-- permissions:end -->/.exec(readme);
  assert.ok(match, 'README.md has the permissions markers');
  assert.equal(
    match[1],
    permissionTable(),
    'regenerate with: node -e "import(\'./src/access/permissions.ts\').then(m=>console.log(m.permissionTable()))"',
  );
});

test('every role has an entry, every grant is a known permission, every permission is used', () => {
  assert.deepEqual(Object.keys(GRANTS).sort(), [...ROLES].sort());
  for (const granted of Object.values(GRANTS)) for (const p of granted) assert.ok(PERMISSIONS.includes(p));
  const used = new Set(Object.values(PROCEDURES).map((p) => p.permission));
  for (const p of PERMISSIONS) assert.ok(used.has(p), `${p} is required by some procedure`);
});

test('unknown roles may do nothing', () => {
  for (const p of PERMISSIONS) assert.equal(roleMay('superuser', p), false);
  assert.equal(roleMay('constructor', 'pasien.list'), false);
});
