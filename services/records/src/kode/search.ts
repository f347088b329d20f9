// Finding codes for a clinician's picker, and checking the codes a diagnosis names. Only active codes:
// an inactive one stays in the table for the diagnoses that already name it, never for new ones.
// The table is the platform's (no tenant, no row-level security), so any tenant's handle reads it.
import type { QueryResultRow } from 'pg';
import type { Querier, TenantDb } from '../db/index.ts';
import type { CodeSystem } from './parse.ts';

/** A tenant's handle (one statement, prepared) or a transaction's querier: both read the codes. */
export type CodeReader = Pick<TenantDb, 'one'> | Querier;

export interface CodeMatch {
  code: string;
  displayEn: string;
  displayId: string;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

function read<R extends QueryResultRow>(q: CodeReader, sql: string, params: unknown[]): Promise<R[]> {
  return 'one' in q ? q.one<R>(sql, params) : q.query<R>(sql, params, { prepare: true });
}

/**
 * What a search text means: a code prefix (capitals; `j069` is read as `J06.9`), and the words that
 * must each start a word of one of the names (letters and digits, lower case; anything else separates
 * words, so no character of the text reaches a pattern unescaped).
 */
export function searchTerms(text: string): { prefix: string; words: string[] } {
  const trimmed = text.trim();
  const upper = trimmed.toUpperCase();
  const undotted = /^([A-Z][0-9]{2})([0-9A-Z]{1,4})$/.exec(upper);
  const prefix = undotted ? `${undotted[1]}.${undotted[2]}` : /^[A-Z0-9.]+$/.test(upper) ? upper : '';
  const words = trimmed.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return { prefix, words };
}

// Code prefix matches first, then by code in byte order (the database's collation might ignore the
// dot). `like` is safe with the prefix: it holds only capitals, digits and dots.
const SEARCH_SQL = `
  select code, display_en as "displayEn", display_id as "displayId"
    from records.kode
   where system = $1 and active
     and (($2 <> '' and code like $2 || '%')
          or (cardinality($3::text[]) > 0
              and (select bool_and(lower(display_en) ~ ('\\m' || w) or lower(display_id) ~ ('\\m' || w)) from unnest($3::text[]) as w)))
   order by ($2 <> '' and code like $2 || '%') desc, code collate "C"
   limit $4`;

/**
 * Active codes of `system` whose code starts with the text (case-insensitive: `j06` finds J06.9), or
 * whose English or Indonesian name has words starting with each word of it (`hipertensi`,
 * `hypertension`, `diabetes tipe 2`): code prefix matches first, then by code. At most `limit`
 * (default 20, at most 100); an empty text finds nothing.
 */
export async function searchCodes(q: CodeReader, text: string, opts: { limit?: number; system?: CodeSystem } = {}): Promise<CodeMatch[]> {
  const { prefix, words } = searchTerms(text);
  if (prefix === '' && words.length === 0) return [];
  const limit = Math.min(Math.max(Math.trunc(opts.limit ?? DEFAULT_LIMIT), 1), MAX_LIMIT);
  return read<CodeMatch>(q, SEARCH_SQL, [opts.system ?? 'icd-10', prefix, words, limit]);
}

const LOOKUP_SQL = 'select code from records.kode where system = $1 and active and code = any($2::text[])';

/**
 * Which of `codes` are active codes of `system`, exactly as written (J06.9, not j069): a diagnosis
 * naming any other is refused.
 */
export async function lookupCodes(q: CodeReader, codes: readonly string[], system: CodeSystem = 'icd-10'): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const rows = await read<{ code: string }>(q, LOOKUP_SQL, [system, [...new Set(codes)]]);
  return new Set(rows.map((r) => r.code));
}
