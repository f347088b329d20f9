// The repository's shape, checked: every service's `src/` has the same top-level entries, no import
// circle anywhere (the bench included), no folder reaches into a sibling folder's internals (only its
// `index.ts`), test support lives where test/README.md says and production code never loads it, the
// bench reaches the workspaces only as their users do, nothing refers to a folder outside the
// repository, and nothing reaches below a library's public API except from its package's `src/shims/`
// folder. Files over 400 lines are the lint's to refuse (eslint.config.js, test/lint.test.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '@simrs/platform/testing';
import { reachesOutsideShims } from './support/library-reaches.ts';

const SERVICES = ['gateway', 'services/identity', 'services/records', 'services/notifier'];
const SOURCE_ROOTS = [...SERVICES, 'packages/contracts', 'packages/platform', 'proto'];

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && statSync(join(repoRoot, f), { throwIfNoEntry: false })?.isFile());

const isSource = (f: string) => /\.(ts|tsx|js|mjs)$/.test(f) && !f.startsWith('proto/gen/') && !/(^|\/)(node_modules|dist)\//.test(f);

/** Every module specifier a file imports or re-exports (statically or with import()), and whether only types. */
function specifiersOf(file: string): Array<{ specifier: string; typeOnly: boolean }> {
  const text = readFileSync(join(repoRoot, file), 'utf8');
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    found.push({ specifier: m[2]!, typeOnly: Boolean(m[1]) });
  }
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ specifier: m[1]!, typeOnly: false });
  return found;
}

/** Relative imports of a file, resolved to repository paths. */
function importsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((s) => /^\.{1,2}\//.test(s.specifier))
    .map((s) => relative(repoRoot, resolve(repoRoot, dirname(file), s.specifier)));
}

/** Test support: test files, the cross-service tests' folder, and each workspace's src/testing/. */
const isTestSupport = (f: string) => /\.test\.ts$/.test(f) || f.startsWith('test/') || /(^|\/)src\/testing\//.test(f);

/** What the images run: the workspaces' sources, less their tests and test support. */
const production = () => tracked.filter((f) => isSource(f) && SOURCE_ROOTS.some((r) => f.startsWith(`${r}/`)) && !isTestSupport(f));

test('every service has the same top-level entries in src/', () => {
  for (const service of SERVICES) {
    const entries = readdirSync(join(repoRoot, service, 'src'), { withFileTypes: true });
    const files = entries
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    assert.deepEqual(
      files,
      ['config.ts', 'instrumentation.ts', 'main.ts'],
      `${service}/src holds only main.ts, config.ts and instrumentation.ts as files`,
    );
    assert.ok(
      entries.some((e) => e.isDirectory() && e.name === 'server'),
      `${service}/src/server exists`,
    );
    assert.ok(entries.filter((e) => e.isDirectory() && e.name !== 'server').length >= 1, `${service}/src has domain folders`);
  }
});

/** Files that import each other, directly or around a loop: one list per circle. */
function circlesAmong(sources: string[]): string[][] {
  const graph = new Map(sources.map((f) => [f, importsOf(f).filter((i) => sources.includes(i))]));
  // Tarjan's strongly connected components: any component of more than one file is a circle.
  let index = 0;
  const stack: string[] = [];
  const meta = new Map<string, { index: number; low: number; onStack: boolean }>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!meta.has(w)) {
        visit(w);
        meta.get(v)!.low = Math.min(meta.get(v)!.low, meta.get(w)!.low);
      } else if (meta.get(w)!.onStack) meta.get(v)!.low = Math.min(meta.get(v)!.low, meta.get(w)!.index);
    }
    if (meta.get(v)!.low === meta.get(v)!.index) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        meta.get(w)!.onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(component);
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) visit(v);
  return circles;
}

test('no import circle', () => {
  const sources = tracked.filter((f) => isSource(f) && SOURCE_ROOTS.some((r) => f.startsWith(`${r}/`)) && !/\.test\.ts$/.test(f));
  assert.deepEqual(circlesAmong(sources), [], 'files that import each other, directly or around a loop');
});

test('no import circle in the bench', () => {
  assert.deepEqual(circlesAmong(tracked.filter((f) => isSource(f) && f.startsWith('bench/'))), [], 'bench files that import each other');
});

test("no folder imports a sibling folder's internals", () => {
  const offenders: string[] = [];
  for (const service of SERVICES) {
    const src = `${service}/src/`;
    for (const file of tracked.filter((f) => f.startsWith(src) && isSource(f) && !f.includes('/assets/'))) {
      const path = file.slice(src.length).split('/');
      if (path.length === 1) continue; // main.ts wires the folders together
      const own = path[0]!;
      for (const target of importsOf(file)) {
        if (!target.startsWith(src)) continue;
        const parts = target.slice(src.length).split('/');
        if (parts.length === 1) continue; // main.ts, config.ts, instrumentation.ts
        const [folder, ...rest] = parts;
        if (folder === own) continue;
        if (rest.join('/') !== 'index.ts') offenders.push(`${file} -> ${target}`);
      }
    }
  }
  assert.deepEqual(offenders, [], 'import a sibling folder only through its index.ts');
});

/** The package a bare specifier names ('@scope/name/sub' -> '@scope/name'). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Packages only ever installed as devDependencies: none of them is in an image. */
function testOnlyPackages(): Set<string> {
  const manifests = ['.', ...SOURCE_ROOTS, 'dashboard'].map(
    (dir) => JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>,
  );
  const shipped = new Set(manifests.flatMap((m) => Object.keys(m.dependencies ?? {})));
  return new Set(manifests.flatMap((m) => Object.keys(m.devDependencies ?? {})).filter((name) => !shipped.has(name)));
}

test("test support lives in test/support/ or a workspace's src/testing/, entered by its index.ts", () => {
  const misplaced = tracked.filter(
    (f) => isSource(f) && !isTestSupport(f) && /(^|\/)(testing|testkit|test-kit|harness|fixtures?)\.tsx?$/.test(f),
  );
  assert.deepEqual(misplaced, [], 'test support outside a testing/ folder');
  const kits = [...new Set(tracked.filter((f) => /\/src\/testing\//.test(f)).map((f) => f.slice(0, f.indexOf('/src/testing/'))))];
  assert.ok(kits.length >= 4, `workspaces with a test kit: ${kits.join(', ')}`);
  for (const workspace of kits) assert.ok(tracked.includes(`${workspace}/src/testing/index.ts`), `${workspace}/src/testing/index.ts`);
});

test('production code loads no test support and no package that only tests install', () => {
  const testOnly = testOnlyPackages();
  assert.ok(testOnly.has('smtp-server') && testOnly.has('@medplum/core'), 'the test-only packages are known');
  const offenders: string[] = [];
  for (const file of production()) {
    for (const { specifier, typeOnly } of specifiersOf(file)) {
      if (/^\.{1,2}\//.test(specifier)) {
        const target = relative(repoRoot, resolve(repoRoot, dirname(file), specifier));
        if (isTestSupport(target)) offenders.push(`${file} -> ${target}`);
      } else if (/^@simrs\/[^/]+\/testing(\/|$)/.test(specifier) || (!typeOnly && testOnly.has(packageOf(specifier)))) {
        offenders.push(`${file} -> ${specifier}`);
      }
    }
  }
  assert.deepEqual(offenders, [], 'a domain index.ts or any other production module must not load test-only code');
});

test('the bench reaches the workspaces as their users do: running them, or through their package exports', () => {
  const workspaces = [...SOURCE_ROOTS, 'dashboard'];
  const internal = tracked
    .filter((f) => isSource(f) && f.startsWith('bench/'))
    .flatMap((f) => importsOf(f).map((target) => `${f} -> ${target}`))
    .filter((edge) => workspaces.some((w) => edge.split(' -> ')[1]!.startsWith(`${w}/src/`)));
  assert.deepEqual(internal, [], "import a workspace's module through its package.json exports, or start it");
});

test('nothing refers to a folder outside the repository', () => {
  const outsideFolder = ['..', 'shared'].join('/'); // spelled so that this file does not name it itself
  const outside = tracked.filter((f) => !f.endsWith('.png') && readFileSync(join(repoRoot, f), 'utf8').includes(outsideFolder));
  assert.deepEqual(outside, []);
});

test("nothing reaches below a library's public API outside a package's src/shims/", () => {
  const workspaces = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  // The checker and its test spell out the patterns they look for.
  const own = new Set(['test/support/library-reaches.ts', 'test/library-reaches.test.ts']);
  const files = tracked
    .filter((f) => /\.(ts|tsx|js|mjs|cjs)$/.test(f) && !/(^|\/)(node_modules|dist)\//.test(f) && !f.startsWith('proto/gen/') && !own.has(f))
    .map((path) => ({ path, text: readFileSync(join(repoRoot, path), 'utf8') }));
  const reaches = reachesOutsideShims(files, workspaces).map((r) => `${r.file}:${r.line} ${r.what}`);
  assert.deepEqual(
    reaches,
    [],
    "use the library's public API, or move the reach into <package>/src/shims/ with its header and upgrade test",
  );
});
