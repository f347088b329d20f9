import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ROLES } from '@simrs/contracts/access';
import { GRANTS, PERMISSIONS, PROCEDURES, permissionTable, roleMay } from './permissions.ts';
import { appRouter } from './router.ts';

test("the README's permission table is the one rendered from the data", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const match = /<!-- permissions:start -->\n([\s\S]*?)\n<!-- permissions:end -->/.exec(readme);
  assert.ok(match, 'README.md has the permissions markers');
  assert.equal(match[1], permissionTable(), 'regenerate with: node -e "import(\'./src/permissions.ts\').then(m=>console.log(m.permissionTable()))"');
});

test('every role has an entry, every grant is a known permission, every permission is used', () => {
  assert.deepEqual(Object.keys(GRANTS).sort(), [...ROLES].sort());
  for (const granted of Object.values(GRANTS)) for (const p of granted) assert.ok(PERMISSIONS.includes(p));
  const used = new Set(Object.values(PROCEDURES).map((p) => p.permission));
  for (const p of PERMISSIONS) assert.ok(used.has(p), `${p} is required by some procedure`);
});

test('every procedure of the router but healthCheck is in the matrix, with its real kind', () => {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  const names = Object.keys(procedures).filter((n) => n !== 'healthCheck').sort();
  assert.deepEqual(names, Object.keys(PROCEDURES).sort());
  for (const [name, spec] of Object.entries(PROCEDURES)) assert.equal(procedures[name]!._def.type, spec.kind, name);
});

test('unknown roles may do nothing', () => {
  for (const p of PERMISSIONS) assert.equal(roleMay('superuser', p), false);
  assert.equal(roleMay('constructor', 'pasien.list'), false);
});
