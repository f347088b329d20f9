// The README stays true: it names every setting the services read, shows the permission matrix as the
// code has it, and gives the two commands CI runs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '@simrs/platform/testing';
import { permissionTable } from '../services/records/src/access/permissions.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

test('every setting a service reads is in the README', () => {
  for (const file of [
    'gateway/src/config.ts',
    'services/identity/src/config.ts',
    'services/records/src/config.ts',
    'services/notifier/src/config.ts',
  ]) {
    const source = readFileSync(join(repoRoot, file), 'utf8');
    const names = [...source.matchAll(/^\s+([A-Z][A-Z0-9_]{2,}):/gm)].map((m) => m[1]!);
    assert.ok(names.length > 3, `settings found in ${file}`);
    for (const name of names) assert.ok(readme.includes(`\`${name}\``), `${name} (${file}) is not in the README`);
  }
});

test("the README's permission table is the records permission data", () => {
  const section = readme.split('<!-- permissions:start -->')[1]!.split('<!-- permissions:end -->')[0]!.trim();
  assert.equal(section, permissionTable().trim());
});

test('the two README commands are the ones CI runs', () => {
  assert.match(readme, /npm ci && npm start/);
  assert.match(readme, /npm ci && npm test/);
  const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8');
  assert.match(ci, /^npm ci\b/m);
  assert.match(ci, /^(counted )?npm test$/m, "CI runs the README's test command (its summary counted)");
});
