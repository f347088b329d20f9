// The README and the docs stay true: the settings tables are the settings the code reads (names both
// ways, and the defaults they state), no other document keeps a settings table of its own, the
// permission table is the records permission data, the README's two commands are the ones CI runs, and
// every relative link between the documents reaches a file (and a heading, when it names one).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { z } from '@simrs/platform/config';
import { repoRoot } from '@simrs/platform/testing';
import { LOCAL_PORTS, STACK_PORTS } from '../scripts/lib/settings.ts';
import { permissionTable } from '../services/records/src/access/permissions.ts';
import { schema as identitySchema } from '../services/identity/src/config.ts';
import { schema as notifierSchema } from '../services/notifier/src/config.ts';
import { configSchema as recordsSchema } from '../services/records/src/config.ts';
import { anchorsOf, isSettingsTable, linksOf, markdownFiles, readDoc, tablesOf } from './support/markdown.ts';

// The gateway's config.ts parses the environment when it is imported: give it the two values it needs.
process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
process.env.PRINCIPAL_SECRET ??= 'x'.repeat(32);
const { schema: gatewaySchema } = await import('../gateway/src/config.ts');

const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');
const readme = read('README.md');
const SETTINGS = 'docs/settings.md';

// ---- settings --------------------------------------------------------------------------------------

/** A settings schema's object (inside its refinements and transforms). */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPipe) return shapeOf(schema.in as z.ZodType);
  return assert.fail('a settings schema is a z.object, possibly refined or transformed');
}

/** What a setting is when the environment leaves it out: required, unset, empty, or its default. */
type Default = { kind: 'required' } | { kind: 'unset' } | { kind: 'empty' } | { kind: 'value'; value: string };
function defaultOf(field: z.ZodType): Default {
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return { kind: 'required' };
  if (parsed.data === undefined) return { kind: 'unset' };
  if (Array.isArray(parsed.data) && parsed.data.length === 0) return { kind: 'empty' };
  return { kind: 'value', value: String(parsed.data) };
}

const SERVICE_SCHEMAS: Record<string, z.ZodType> = {
  gateway: gatewaySchema,
  identity: identitySchema,
  records: recordsSchema,
  notifier: notifierSchema,
};

/** The variables `npm start` reads: its own schema, its ports, and the mail catcher's (which it runs). */
function startVariables(): Map<string, Default | undefined> {
  const out = new Map<string, Default | undefined>();
  for (const m of read('scripts/start.ts').matchAll(/^\s+([A-Z][A-Z0-9_]*)\??:/gm)) out.set(m[1]!, undefined);
  for (const p of [...Object.values(STACK_PORTS), ...Object.values(LOCAL_PORTS)])
    out.set(p.variable, { kind: 'value', value: String(p.fallback) });
  for (const file of ['scripts/mailcatcher.ts', 'scripts/mail.ts'])
    for (const m of read(file).matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\bportFrom\('([A-Z][A-Z0-9_]+)'/g))
      if (!out.has(m[1] ?? m[2]!)) out.set(m[1] ?? m[2]!, undefined);
  return out;
}

/** The code's variables for each section of docs/settings.md, with their defaults where the code has them. */
function expectedSections(): Map<string, Map<string, Default | undefined>> {
  const sections = new Map<string, Map<string, Default | undefined>>([['`npm start` and `npm test`', startVariables()]]);
  for (const [service, schema] of Object.entries(SERVICE_SCHEMAS))
    sections.set(service, new Map(Object.entries(shapeOf(schema)).map(([name, field]) => [name, defaultOf(field)])));
  return sections;
}

const settingsTables = tablesOf(read(SETTINGS)).filter((t) => isSettingsTable(t));

test('docs/settings.md has one table per service and one for npm start, under their headings', () => {
  assert.deepEqual(settingsTables.map((t) => t.heading).sort(), [...expectedSections().keys()].sort());
  for (const t of settingsTables)
    assert.deepEqual(
      t.header.map((c) => c.toLowerCase()),
      ['variable', 'default', 'meaning'],
      t.heading,
    );
});

test('each settings table lists exactly the settings its code reads', () => {
  const expected = expectedSections();
  for (const t of settingsTables) {
    const code = expected.get(t.heading)!;
    const documented = t.rows.map(
      (r) => /^`([A-Z][A-Z0-9_]*)`$/.exec(r[0]!)?.[1] ?? assert.fail(`${t.heading}: one variable per row: ${r[0]}`),
    );
    assert.equal(new Set(documented).size, documented.length, `${t.heading}: a variable listed twice`);
    assert.ok(code.size > 3, `${t.heading}: variables found in the code`);
    assert.deepEqual(
      [...code.keys()].filter((k) => !documented.includes(k)),
      [],
      `${t.heading}: read by the code, missing from ${SETTINGS}`,
    );
    assert.deepEqual(
      documented.filter((k) => !code.has(k)),
      [],
      `${t.heading}: in ${SETTINGS}, not read by the code`,
    );
  }
});

test('each default a settings table states is the code’s', () => {
  const expected = expectedSections();
  let checked = 0;
  for (const t of settingsTables) {
    const code = expected.get(t.heading)!;
    for (const [cell, stated] of t.rows) {
      const name = cell!.slice(1, -1);
      const actual = code.get(name);
      const where = `${SETTINGS} ${t.heading}: ${name} default "${stated}"`;
      const saysRequired = /^required\b/.test(stated!);
      if (actual === undefined) continue; // the code's default is not a value the test can read
      checked++;
      assert.equal(saysRequired, actual.kind === 'required', `${where}: the code has it ${actual.kind}`);
      if (actual.kind === 'empty') assert.match(stated!, /^empty\b/, where);
      if (actual.kind === 'unset') assert.doesNotMatch(stated!, /^`[^`]*`(\s*\(|$)/, `${where}: the code has no default`);
      if (actual.kind === 'value') assert.equal(/^`([^`]*)`/.exec(stated!)?.[1], actual.value, where);
    }
  }
  assert.ok(checked > 80, `${checked} defaults checked`);
});

test('no other document keeps a settings table: they link to docs/settings.md', () => {
  const known = new Set([...expectedSections().values()].flatMap((s) => [...s.keys()]));
  const elsewhere: string[] = [];
  for (const file of markdownFiles()) {
    if (file === SETTINGS) continue;
    for (const t of tablesOf(readDoc(file)).filter((t) => isSettingsTable(t, known)))
      elsewhere.push(`${file}:${t.line} (under "${t.heading}")`);
  }
  assert.deepEqual(elsewhere, []);
});

// ---- permissions and commands ----------------------------------------------------------------------

test("docs/access.md's permission table is the records permission data", () => {
  const section = read('docs/access.md').split('<!-- permissions:start -->')[1]!.split('<!-- permissions:end -->')[0]!.trim();
  assert.equal(section, permissionTable().trim());
});

test('the two README commands are the ones CI runs', () => {
  assert.match(readme, /npm ci && npm start/);
  assert.match(readme, /npm ci && npm test/);
  const ci = read('.ci/run');
  assert.match(ci, /^npm ci\b/m);
  assert.match(ci, /^(counted )?npm test$/m, "CI runs the README's test command (its summary counted)");
});

// ---- links and references ----------------------------------------------------------------------------

test('every relative link in every document reaches a file, and the heading it names', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    for (const { target, line } of linksOf(readDoc(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, mailto:, ...
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      const where = `${file}:${line} → ${target}`;
      if (resolved.startsWith('..') || !existsSync(join(repoRoot, resolved))) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(readDoc(resolved)).has(decodeURIComponent(anchor)))
        broken.push(`${where}: no such heading in ${resolved}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the documents cite no issue numbers and no documents outside the repository', () => {
  const found: string[] = [];
  for (const file of markdownFiles()) {
    readDoc(file)
      .split('\n')
      .forEach((text, i) => {
        for (const [pattern, what] of [
          [/\bissues? #?\d/i, 'an issue number'],
          [/(^|[\s(])#\d+\b/, 'an issue or pull request number'],
          [/\bDESIGN\.md\b/, 'DESIGN.md, which is not in the repository'],
          [/\bshared\//, 'shared/, which is not in the repository'],
          [/github\.com\/[^/\s]+\/[^/\s]+\/(issues|pull)\//, 'an issue tracker'],
        ] as const)
          if (pattern.test(text)) found.push(`${file}:${i + 1}: ${what}: ${text.trim().slice(0, 100)}`);
      });
  }
  assert.deepEqual(found, []);
});
