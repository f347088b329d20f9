// Reading the repository's Markdown the way a reader sees it: which files there are, their headings
// (and the anchors GitHub gives them), their tables (under which heading) and their relative links.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@simrs/platform/testing';

/** Every Markdown file of the repository, tracked or new (ignored files, such as node_modules, left out). */
export function markdownFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && statSync(join(repoRoot, f), { throwIfNoEntry: false })?.isFile());
}

export const readDoc = (file: string): string => readFileSync(join(repoRoot, file), 'utf8');

/** The text outside fenced code blocks, line by line (a fence's lines become empty, so line numbers stay). */
export function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a document's headings, with GitHub's `-1`, `-2` for repeated ones. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

export interface Table {
  /** The nearest heading above the table (its text), or '' before any. */
  heading: string;
  /** The header row's cells. */
  header: string[];
  /** The body rows' cells (the delimiter row left out). */
  rows: string[][];
  line: number;
}

/** A table row's cells, trimmed; `\|` inside a cell is a literal bar. */
export const cells = (row: string): string[] =>
  row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

export function tablesOf(markdown: string): Table[] {
  const lines = proseLines(markdown);
  const tables: Table[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^#{1,6}\s+(.+?)\s*$/.exec(line)?.[1];
    if (h !== undefined) heading = h;
    if (!line.trim().startsWith('|') || !/^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) continue;
    const rows: string[][] = [];
    let j = i + 2;
    while (j < lines.length && lines[j]!.trim().startsWith('|')) rows.push(cells(lines[j++]!));
    tables.push({ heading, header: cells(line), rows, line: i + 1 });
    i = j - 1;
  }
  return tables;
}

/**
 * A settings table: its first column is headed "variable" (or "setting"), or most of its rows name one
 * of `known` (environment variables some code reads), in backticks, in the first cell.
 */
export const isSettingsTable = (t: Table, known: ReadonlySet<string> = new Set()): boolean =>
  /^(variable|setting|environment)/i.test(t.header[0] ?? '') ||
  (t.rows.length > 0 && t.rows.filter((r) => known.has(/^`([A-Z][A-Z0-9_]*)`/.exec(r[0] ?? '')?.[1] ?? '')).length * 2 > t.rows.length);

export interface Link {
  target: string;
  line: number;
}

/** The links and images of a document (inline `[text](target)` and reference definitions), outside code. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1]!, line: i + 1 });
    const definition = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition) links.push({ target: definition[1]!, line: i + 1 });
  });
  return links;
}
