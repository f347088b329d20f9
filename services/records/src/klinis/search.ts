// The clinical-entry search FHIR's Observation, Condition and AllergyIntolerance searches run: by
// patient, visit, time, code, category, status and last change, one keyset page ordered by the time of
// the entry (or of its last change), with its audit row in the same statement (the patients on the page).
import type { ClinicalKind } from '../access/index.ts';
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import { SELECT_ENTRY, toEntry } from './rows.ts';
import type { Row } from './rows.ts';
import type { Entry } from './schema.ts';

/** A time range; bounds are ISO instants. */
export interface TimeRange {
  from?: string;
  fromInclusive?: boolean;
  to?: string;
  toInclusive?: boolean;
  not?: boolean;
}

/** One alternative of a status filter: entered in error or not, first version or amended, a content status. */
export interface StatusMatch {
  enteredInError?: boolean;
  amended?: boolean;
  /** `isi ->> field` equals value. */
  isi?: { field: 'clinicalStatus' | 'verificationStatus'; value: string };
}

export type EntrySort = 'waktu' | '-waktu' | 'updated' | '-updated';

export interface EntryQuery {
  kind: ClinicalKind;
  /** Every listed set ANDs; within one, values OR. */
  pasienIds: string[][];
  kunjunganIds: string[][];
  ids: string[][];
  kode: string[][];
  kategori: string[][];
  waktu: TimeRange[][];
  updated: TimeRange[][];
  status: StatusMatch[][];
  /** Without a status filter naming them, entries marked entered-in-error are left out. */
  includeEnteredInError: boolean;
  sort: EntrySort;
  limit: number;
  /** Keyset position: the sort key (time as text, id) of the row the page starts after. */
  after?: [string, string];
  audit: Record<string, unknown>;
}

const SORT_SQL: Record<EntrySort, { column: string; desc: boolean }> = {
  waktu: { column: 'e.waktu', desc: false },
  '-waktu': { column: 'e.waktu', desc: true },
  updated: { column: 'e.updated_at', desc: false },
  '-updated': { column: 'e.updated_at', desc: true },
};

function rangeSql(p: (v: unknown) => string, column: string, r: TimeRange): string {
  const parts: string[] = [];
  if (r.from !== undefined) parts.push(`${column} ${r.fromInclusive === false ? '>' : '>='} ${p(r.from)}::timestamptz`);
  if (r.to !== undefined) parts.push(`${column} ${r.toInclusive ? '<=' : '<'} ${p(r.to)}::timestamptz`);
  const inside = parts.length ? parts.join(' and ') : 'true';
  return r.not ? `not (${inside})` : `(${inside})`;
}

function statusSql(p: (v: unknown) => string, s: StatusMatch): string {
  const parts: string[] = [];
  if (s.enteredInError !== undefined) parts.push(s.enteredInError ? 'e.entered_in_error' : 'not e.entered_in_error');
  if (s.amended !== undefined) parts.push(s.amended ? 'e.version > 1' : 'e.version = 1');
  if (s.isi) parts.push(`e.isi ->> ${p(s.isi.field)} = ${p(s.isi.value)}`);
  return parts.length ? `(${parts.join(' and ')})` : 'true';
}

function whereOf(p: (v: unknown) => string, q: EntryQuery): string[] {
  const where = [`e.jenis = ${p(q.kind)}`];
  for (const set of q.pasienIds) where.push(`e.pasien_id = any(${p(set)}::uuid[])`);
  for (const set of q.kunjunganIds) where.push(`e.kunjungan_id = any(${p(set)}::uuid[])`);
  for (const set of q.ids) where.push(`e.id = any(${p(set)}::uuid[])`);
  for (const set of q.kode) where.push(`e.kode = any(${p(set)}::text[])`);
  for (const set of q.kategori) where.push(`e.kategori = any(${p(set)}::text[])`);
  for (const set of q.waktu) where.push(`(${set.map((r) => rangeSql(p, 'e.waktu', r)).join(' or ') || 'false'})`);
  for (const set of q.updated) where.push(`(${set.map((r) => rangeSql(p, 'e.updated_at', r)).join(' or ') || 'false'})`);
  for (const set of q.status) where.push(`(${set.map((s) => statusSql(p, s)).join(' or ') || 'false'})`);
  if (!q.includeEnteredInError) where.push('not e.entered_in_error');
  return where;
}

export function klinisSearch({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor(actor);
  return {
    /** One page (at most `limit` entries), whether more follow, and the sort key of its last entry. */
    async search(q: EntryQuery): Promise<{ items: Entry[]; more: boolean; lastKey?: [string, string] }> {
      const { values, p } = params();
      const where = whereOf(p, q);
      const { column, desc } = SORT_SQL[q.sort];
      if (q.after) where.push(`(${column}, e.id) ${desc ? '<' : '>'} (${p(q.after[0])}::timestamptz, ${p(q.after[1])}::uuid)`);
      const dir = desc ? 'desc' : 'asc';
      // The sort key goes out as text: a JavaScript Date would drop the microseconds Postgres keeps.
      const sql = `with page as (select ${SELECT_ENTRY}, ${column}::text as sort_key from records.klinis e
          where ${where.join(' and ')} order by ${column} ${dir}, e.id ${dir} limit ${p(q.limit)} + 1),
        shown as (select pasien_id from page limit ${p(q.limit)}),
        audit as (${auditInsert(p, 'klinis.read', "coalesce((select array_agg(distinct pasien_id::uuid) from shown), '{}')", { ...q.audit, jenis: q.kind })})
        select * from page`;
      const rows = await db.one<Row>(sql, values, { prepare: false });
      const shown = rows.slice(0, q.limit);
      const last = shown[shown.length - 1];
      return {
        items: shown.map(toEntry),
        more: rows.length > q.limit,
        ...(last ? { lastKey: [String(last.sort_key), String(last.id)] as [string, string] } : {}),
      };
    },
  };
}
