// The repository's shape, checked: every service's `src/` has the same top-level entries, no import
// circle anywhere, no folder reaches into a sibling folder's internals (only its `index.ts`), no source
// file over 400 lines, nothing refers to a folder outside the repository, and nothing reaches below a
// library's public API except from its package's `src/shims/` folder.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '@simrs/platform/testing';
import { reachesOutsideShims } from './support/library-reaches.ts';

const SERVICES = ['gateway', 'services/identity', 'services/records', 'services/notifier'];
const SOURCE_ROOTS = [...SERVICES, 'packages/contracts', 'packages/platform', 'proto'];
const MAX_LINES = 400;

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && statSync(join(repoRoot, f), { throwIfNoEntry: false })?.isFile());

const isSource = (f: string) => /\.(ts|tsx|js|mjs)$/.test(f) && !f.startsWith('proto/gen/') && !/(^|\/)(node_modules|dist)\//.test(f);

/** Relative imports of a file, resolved to repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(repoRoot, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
    found.push(relative(repoRoot, resolve(repoRoot, dirname(file), m[1]!)));
  }
  for (const m of text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    found.push(relative(repoRoot, resolve(repoRoot, dirname(file), m[1]!)));
  }
  return found;
}

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

test('no import circle', () => {
  const sources = tracked.filter((f) => isSource(f) && SOURCE_ROOTS.some((r) => f.startsWith(`${r}/`)) && !/\.test\.ts$/.test(f));
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
  assert.deepEqual(circles, [], 'files that import each other, directly or around a loop');
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

test(`no source file over ${MAX_LINES} lines`, () => {
  const long = tracked
    .filter((f) => isSource(f) && !/\.test\.ts$/.test(f) && !f.startsWith('test/'))
    .map((f) => [f, readFileSync(join(repoRoot, f), 'utf8').split('\n').length] as const)
    .filter(([, lines]) => lines > MAX_LINES + 1);
  assert.deepEqual(long, []);
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
