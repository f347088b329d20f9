// The lint rules that keep files and functions short hold: the repository's own ESLint config rejects
// any file over 400 lines (tests too, every line counted), and a source function over 80 lines or with
// a complexity over 20, which tests may have.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ESLint } from 'eslint';
import { repoRoot } from '@simrs/platform/testing';

const eslint = new ESLint({ cwd: repoRoot });

/** A function of `lines` lines: the signature, `lines - 2` statements, the closing brace. */
function longFunction(lines: number): string {
  const sums = Array.from({ length: lines - 4 }, (_, i) => `  total += ${i};`);
  return ['export function long(): number {', '  let total = 0;', ...sums, '  return total;', '}', ''].join('\n');
}

/** A function whose cyclomatic complexity is `branches + 1`. */
function branchyFunction(branches: number): string {
  const ifs = Array.from({ length: branches }, (_, i) => `  if (n === ${i}) return ${i};`);
  return ['export function branchy(n: number): number {', ...ifs, '  return -1;', '}', ''].join('\n');
}

async function rulesHit(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${repoRoot}/${filePath}` });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

/** A module of `lines` lines, `blank` of them empty and `comments` of them comments. */
function fileOf(lines: number, blank = 0, comments = 0): string {
  const code = Array.from({ length: lines - blank - comments }, (_, i) => `export const n${i} = ${i};`);
  return [...Array<string>(comments).fill('// a note'), ...Array<string>(blank).fill(''), ...code].join('\n') + '\n';
}

test('a file over 400 lines is a lint error, tests and test support included, every line counted', async () => {
  for (const path of ['services/records/src/fhir/long.ts', 'test/long.test.ts', 'test/support/long.ts']) {
    assert.deepEqual(await rulesHit(fileOf(400), path), [], path);
    assert.deepEqual(await rulesHit(fileOf(401), path), ['max-lines'], path);
    assert.deepEqual(await rulesHit(fileOf(401, 10, 10), path), ['max-lines'], `${path}: blank lines and comments count`);
  }
});

test('the generated functions are the sizes they claim', () => {
  assert.equal(longFunction(81).trimEnd().split('\n').length, 81);
  assert.equal(longFunction(80).trimEnd().split('\n').length, 80);
});

test('a source function over 80 lines is a lint error', async () => {
  assert.deepEqual(await rulesHit(longFunction(81), 'services/records/src/fhir/long.ts'), ['max-lines-per-function']);
  assert.deepEqual(await rulesHit(longFunction(80), 'services/records/src/fhir/long.ts'), []);
});

test('blank lines and comments do not count towards the 80', async () => {
  const padded = longFunction(80).replace('  let total = 0;\n', '  let total = 0;\n\n  // a note\n\n');
  assert.deepEqual(await rulesHit(padded, 'gateway/src/server/long.ts'), []);
});

test('a source function with a complexity over 20 is a lint error', async () => {
  assert.deepEqual(await rulesHit(branchyFunction(20), 'services/notifier/src/mail/branchy.ts'), ['complexity']);
  assert.deepEqual(await rulesHit(branchyFunction(19), 'services/notifier/src/mail/branchy.ts'), []);
});

test('tests and test kits may have long functions', async () => {
  for (const path of ['services/records/src/fhir/long.test.ts', 'test/long.test.ts', 'services/records/src/server/testkit.ts']) {
    assert.deepEqual(await rulesHit(longFunction(81), path), [], path);
    assert.deepEqual(await rulesHit(branchyFunction(20), path), [], path);
  }
});
