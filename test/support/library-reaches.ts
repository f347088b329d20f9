// Reaches below a library's public API: importing another package's internal files (`*/lib/*`,
// `*/dist/*`, tRPC's `unstable-core-do-not-import`), reading its private members (`._def`, pg's
// `parsedStatements` or `connection.stream`) or replacing its methods (`internalAdapter.x = ...`,
// `Foo.prototype.x = ...`). Such code breaks silently on a patch release, so it may live only in its
// package's `src/shims/` folder, where each file says what it waits for and has an upgrade test.

/** The folder of a workspace package where reaches are allowed. */
export const shimsFolder = (workspace: string) => `${workspace}/src/shims/`;

export interface Reach {
  file: string;
  line: number;
  what: string;
}

/** Module specifiers as they appear in import/export statements, `import()`, `require()` and `createRequire(...)(...)`. */
const SPECIFIERS = [
  /(?:^|[\s;])(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g,
  /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** Why a bare specifier names a package's internals, or undefined when it goes through its front door. */
function internalSpecifier(specifier: string): string | undefined {
  if (/^(\.|\/|node:|[a-z]+:)/.test(specifier)) return undefined;
  const parts = specifier.split('/');
  const subpath = parts.slice(specifier.startsWith('@') ? 2 : 1);
  if (subpath.includes('unstable-core-do-not-import')) return `imports ${specifier} (an unstable internal entry)`;
  if (subpath.some((p) => p === 'lib' || p === 'dist')) return `imports ${specifier} (a file below the package's exports)`;
  return undefined;
}

/** Private members and patches, by the text that gives them away. */
const MEMBERS: Array<[RegExp, string]> = [
  [/\._def\b/g, 'reads a private member (._def)'],
  [/\bparsedStatements\b/g, "reads pg's private parsedStatements"],
  [/\bconnection\??\.stream\b/g, "reads pg's private connection.stream"],
  [/\binternalAdapter\.\w+\s*=(?!=)/g, "replaces a method of Better Auth's internal adapter"],
  [/\b[A-Z]\w*\.prototype\.\w+\s*=(?!=)/g, "replaces a method on a class's prototype"],
];

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** Every reach in one file's text (`file` only labels the results). */
export function reachesIn(file: string, text: string): Reach[] {
  const found: Reach[] = [];
  for (const pattern of SPECIFIERS) {
    for (const m of text.matchAll(pattern)) {
      const what = internalSpecifier(m[1]!);
      if (what) found.push({ file, line: lineOf(text, m.index + m[0].lastIndexOf(m[1]!)), what });
    }
  }
  for (const [pattern, what] of MEMBERS) for (const m of text.matchAll(pattern)) found.push({ file, line: lineOf(text, m.index), what });
  return found.sort((a, b) => a.line - b.line);
}

/** The reaches of `files` that are not in their workspace's shims folder. */
export function reachesOutsideShims(files: Array<{ path: string; text: string }>, workspaces: readonly string[]): Reach[] {
  const shims = workspaces.map(shimsFolder);
  return files.filter((f) => !shims.some((s) => f.path.startsWith(s))).flatMap((f) => reachesIn(f.path, f.text));
}
