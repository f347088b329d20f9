// `npm run build`: each service workspace's src/ as plain JavaScript in its dist/, for production.
// Why: a process that loads .ts files starts Node's type stripper (amaro), whose WebAssembly memory
// stays in the process for good: about 25 MB of every service's RSS (issue 18). The images, the chart's
// Jobs and the bench run dist/ with `node --conditions=simrs-compiled` (the shared workspaces' package
// exports point that condition at dist/); tests and `npm start` keep running the sources.
// The transform is Node's own (module.stripTypeScriptTypes, the one that runs the sources), in strip
// mode: types become blanks, so every line and column stays where it is in src/ (stack traces match
// the sources, no source maps). Relative `.ts` import specifiers are rewritten to `.js`. src/ holds only
// modules (no service serves pages or assets of its own); tests are left out. dist/ sits beside src/,
// so paths a module finds from import.meta.url (../../migrations) resolve the same.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUILT_WORKSPACES = [
  'proto',
  'packages/contracts',
  'packages/platform',
  'gateway',
  'services/identity',
  'services/records',
  'services/notifier',
] as const;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const isTest = (file: string) => /\.test\.ts$/.test(file);

/**
 * `from './x.ts'`, `import './x.ts'` and `import('./x.ts')` with a relative specifier: the only forms
 * the sources use (package specifiers resolve through the packages' export conditions instead).
 */
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.?\/[^'"\n]*?)\.ts\2/g;

/** One module: types stripped (positions kept), relative `.ts` specifiers pointed at `.js`. */
export function compile(source: string): string {
  return stripTypeScriptTypes(source, { mode: 'strip' }).replace(RELATIVE_TS, '$1$2$3.js$2');
}

/** Relative `.ts` specifiers left in compiled code (a form RELATIVE_TS does not know): should be none. */
export function leftoverTsImports(code: string): string[] {
  return [...code.matchAll(/\b(?:from|import)\s*\(?\s*(['"])(\.\.?\/[^'"\n]*\.ts)\1/g)].map((m) => m[2]!);
}

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Builds one workspace's dist/ afresh; returns the files written (relative to the workspace). */
export function buildWorkspace(workspace: string): string[] {
  const src = join(root, workspace, 'src');
  const dist = join(root, workspace, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const written: string[] = [];
  for (const file of files(src)) {
    if (isTest(file)) continue;
    const rel = relative(src, file);
    if (!rel.endsWith('.ts')) throw new Error(`${workspace}/src/${rel}: only TypeScript modules are built, nothing is copied`);
    const out = join(dist, `${rel.slice(0, -3)}.js`);
    mkdirSync(dirname(out), { recursive: true });
    const code = compile(readFileSync(file, 'utf8'));
    const left = leftoverTsImports(code);
    if (left.length > 0) throw new Error(`${workspace}/src/${rel}: relative .ts imports left after the build: ${left.join(', ')}`);
    writeFileSync(out, code);
    written.push(relative(join(root, workspace), out));
  }
  return written;
}

export function build(): Record<string, number> {
  return Object.fromEntries(BUILT_WORKSPACES.map((w) => [w, buildWorkspace(w).length]));
}

if (import.meta.main) {
  const counts = build();
  for (const [workspace, n] of Object.entries(counts)) console.log(`${workspace}/dist: ${n} files`);
}
