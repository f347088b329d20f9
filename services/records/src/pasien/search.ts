// The general patient search behind FHIR's `GET Patient?...`: conditions that AND together (each
// with values that OR together), one sort order, keyset pages in both directions. Like every read it
// appends its audit row (`pasien.list`, the ids on the page) in the same statement. The conditions are
// FHIR-neutral (fields of the record); fhir/ translates search parameters into them.
//
// Plans that stay flat as the table grows: identifiers use the unique (tenant_id, nik) / (tenant_id,
// no_rm) indexes and the partial BPJS index; a name, family or given search alone is an ordered range
// scan of pasien_nama that stops after one page (as pasien.list's `q`); the default order walks
// (tenant_id, no_rm) backwards, birth date and last-update orders their own indexes.
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import { SELECT_PASIEN, toPasien } from './rows.ts';
import type { Row } from './rows.ts';
import type { Pasien } from './schema.ts';

/** A range of dates or instants (ISO text); a bound is absent when open. `not` inverts it (FHIR `ne`). */
export interface Range {
  from?: string;
  fromInclusive?: boolean;
  to?: string;
  toInclusive?: boolean;
  not?: boolean;
}

export type Condition =
  | { field: 'id' | 'nik' | 'noRm' | 'noBpjs' | 'anyIdentifier'; anyOf: string[] }
  | { field: 'hasNoBpjs' | 'none' | 'all' }
  | { field: 'or'; anyOf: Condition[] }
  | { field: 'name'; part: 'any' | 'family' | 'given' | 'exact'; anyOf: string[] }
  | { field: 'jenisKelamin'; anyOf: string[] }
  | { field: 'tanggalLahir' | 'updatedAt'; anyOf: Range[] };

export type SearchSort = 'default' | 'name' | 'lahir' | '-lahir' | 'updated' | '-updated';

export interface SearchQuery {
  conditions: Condition[];
  sort: Exclude<SearchSort, 'name'>;
  limit: number;
  /** Keyset position: the sort key of the row the page starts after (`next`) or ends before (`prev`). */
  page?: { direction: 'next' | 'prev'; key: string[] };
  /** Filter names for the audit row (never their values). */
  audit: Record<string, unknown>;
}

export interface SearchPage {
  items: Pasien[];
  /** Sort keys of the first and last row, for the previous and next links. */
  firstKey?: string[];
  lastKey?: string[];
  /** Whether rows exist beyond the page in the direction it was read. */
  more: boolean;
  sort: SearchSort;
}

interface Order {
  keys: { expr: string; cast: string }[];
  descending: boolean;
}

const ORDERS: Record<SearchSort, Order> = {
  default: { keys: [{ expr: 'p.no_rm', cast: 'text' }], descending: true },
  name: {
    keys: [
      { expr: 't.kunci', cast: 'text' },
      { expr: 't.pasien_id', cast: 'uuid' },
    ],
    descending: false,
  },
  lahir: {
    keys: [
      { expr: 'p.tanggal_lahir', cast: 'date' },
      { expr: 'p.no_rm', cast: 'text' },
    ],
    descending: false,
  },
  '-lahir': {
    keys: [
      { expr: 'p.tanggal_lahir', cast: 'date' },
      { expr: 'p.no_rm', cast: 'text' },
    ],
    descending: true,
  },
  updated: {
    keys: [
      { expr: 'p.updated_at', cast: 'timestamptz' },
      { expr: 'p.id', cast: 'uuid' },
    ],
    descending: false,
  },
  '-updated': {
    keys: [
      { expr: 'p.updated_at', cast: 'timestamptz' },
      { expr: 'p.id', cast: 'uuid' },
    ],
    descending: true,
  },
};

const COLUMN = { id: 'p.id', nik: 'p.nik', noRm: 'p.no_rm', noBpjs: 'p.no_bpjs', jenisKelamin: 'p.jenis_kelamin' } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The name-key prefix range of a term, for pasien_nama.kunci. */
const prefixOf = (p: (v: unknown) => string, term: string, column: string) => {
  const key = `records.name_key(${p(term)})`;
  return { key, where: `${column} >= ${key} and ${column} < ${key} || chr(1114111)` };
};

function rangeSql(p: (v: unknown) => string, column: string, cast: string, r: Range): string {
  const parts: string[] = [];
  if (r.from !== undefined) parts.push(`${column} ${r.fromInclusive === false ? '>' : '>='} ${p(r.from)}::${cast}`);
  if (r.to !== undefined) parts.push(`${column} ${r.toInclusive ? '<=' : '<'} ${p(r.to)}::${cast}`);
  const inside = parts.length ? parts.join(' and ') : 'true';
  return r.not ? `not (${inside})` : `(${inside})`;
}

function conditionSql(p: (v: unknown) => string, c: Condition): string {
  switch (c.field) {
    case 'none':
      return 'false';
    case 'all':
      return 'true';
    case 'or':
      return `(${c.anyOf.map((alt) => conditionSql(p, alt)).join(' or ')})`;
    case 'hasNoBpjs':
      return 'p.no_bpjs is not null';
    case 'id': {
      const ids = c.anyOf.filter((v) => UUID.test(v));
      return ids.length ? `p.id = any(${p(ids)}::uuid[])` : 'false';
    }
    case 'noRm':
      return `p.no_rm = any(${p(c.anyOf.filter((v) => /^\d{1,8}$/.test(v)).map((v) => v.padStart(8, '0')))}::text[])`;
    case 'nik':
    case 'noBpjs':
    case 'jenisKelamin':
      return `${COLUMN[c.field]} = any(${p(c.anyOf)}::text[])`;
    case 'anyIdentifier': {
      const values = p(c.anyOf);
      const rms = p(c.anyOf.filter((v) => /^\d{1,8}$/.test(v)).map((v) => v.padStart(8, '0')));
      return `(p.nik = any(${values}::text[]) or p.no_rm = any(${rms}::text[]) or p.no_bpjs = any(${values}::text[]))`;
    }
    case 'name': {
      const alternatives = c.anyOf.map((term) => {
        if (c.part === 'exact') {
          const { key } = prefixOf(p, term, 't.kunci');
          return `(t.kunci = ${key} and t.posisi = 1 and p.nama = ${p(term)})`;
        }
        const { where } = prefixOf(p, term, 't.kunci');
        // The last word of a name is its `family` (Indonesian names rarely have one; see the FHIR mapping in the records README).
        const part = c.part === 'family' ? " and strpos(t.kunci, ' ') = 0" : c.part === 'given' ? " and strpos(t.kunci, ' ') > 0" : '';
        return `(${where}${part})`;
      });
      return `exists (select 1 from records.pasien_nama t where t.pasien_id = p.id and (${alternatives.join(' or ')}))`;
    }
    case 'tanggalLahir':
      return `(${c.anyOf.map((r) => rangeSql(p, 'p.tanggal_lahir', 'date', r)).join(' or ')})`;
    case 'updatedAt':
      return `(${c.anyOf.map((r) => rangeSql(p, 'p.updated_at', 'timestamptz', r)).join(' or ')})`;
  }
}

export function pasienSearch({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor(actor);
  return {
    async search(query: SearchQuery): Promise<SearchPage> {
      const { values, p } = params();
      const where: string[] = ["p.status = 'active'"];
      // One single-valued name condition (not `exact`) drives the search when no other order is asked
      // for: pages in name order straight off the pasien_nama index.
      const driver =
        query.sort === 'default'
          ? query.conditions.find((c) => c.field === 'name' && c.anyOf.length === 1 && c.part !== 'exact')
          : undefined;
      const sort: SearchSort = driver ? 'name' : query.sort;
      let from = 'records.pasien p';
      for (const c of query.conditions) {
        if (c === driver && c.field === 'name') {
          const term = c.anyOf[0]!;
          const { key, where: range } = prefixOf(p, term, 't.kunci');
          from = 'records.pasien_nama t join records.pasien p on p.id = t.pasien_id';
          where.push(range);
          // A patient matches through its first matching word only (never listed twice); for family
          // that is its last word, for given any earlier one.
          if (c.part === 'family') where.push("strpos(t.kunci, ' ') = 0");
          else where.push(`strpos(' ' || t.nama_key, ' ' || ${key}) = t.posisi`);
          if (c.part === 'given') where.push("strpos(t.kunci, ' ') > 0");
        } else where.push(conditionSql(p, c));
      }
      const order = ORDERS[sort];
      const forward = query.page?.direction !== 'prev';
      // Reading backwards (a previous page) walks the same index the other way, then turns the rows round.
      const descending = order.descending !== !forward;
      if (query.page) {
        const cols = order.keys.map((k) => k.expr).join(', ');
        const keys = order.keys.map((k, i) => `${p(query.page!.key[i] ?? '')}::${k.cast}`).join(', ');
        where.push(`(${cols}) ${descending ? '<' : '>'} (${keys})`);
      }
      const direction = descending ? 'desc' : 'asc';
      const orderBy = order.keys.map((k) => `${k.expr} ${direction}`).join(', ');
      const keyCols = order.keys.map((k, i) => `${k.expr}::text as "_k${i}"`).join(', ');
      const finalOrder = order.keys.map((_, i) => `"_r${i}" ${direction}`).join(', ');
      const rawKeys = order.keys.map((k, i) => `${k.expr} as "_r${i}"`).join(', ');
      const limit = p(query.limit);
      const page = `select ${SELECT_PASIEN('p')}, ${keyCols}, ${rawKeys} from ${from} where ${where.join(' and ')} order by ${orderBy} limit ${limit} + 1`;
      const sql = `with page as (${page}),
        audit as (${auditInsert(p, 'pasien.list', `coalesce((select array_agg(s.id::uuid) from (select "id" as id from page order by ${finalOrder} limit ${limit}) s), '{}')`, query.audit)})
        select * from page order by ${finalOrder}`;
      const rows = await db.one<Row>(sql, values, { prepare: false });
      const more = rows.length > query.limit;
      const taken = rows.slice(0, query.limit);
      if (!forward) taken.reverse();
      const keyOf = (r: Row | undefined) => (r ? order.keys.map((_, i) => String(r[`_k${i}`])) : undefined);
      return { items: taken.map(toPasien), firstKey: keyOf(taken[0]), lastKey: keyOf(taken[taken.length - 1]), more, sort };
    },

    /**
     * How many patients match, and no rows (FHIR `_count=0`). Audited like a search, with no patient ids:
     * the answer names none.
     */
    async count(query: Pick<SearchQuery, 'conditions' | 'audit'>): Promise<number> {
      const { values, p } = params();
      const where = ["p.status = 'active'", ...query.conditions.map((c) => conditionSql(p, c))];
      const sql = `with audit as (${auditInsert(p, 'pasien.list', "'{}'::uuid[]", query.audit)})
        select count(*)::int as total from records.pasien p where ${where.join(' and ')}`;
      const [row] = await db.one<{ total: number }>(sql, values, { prepare: false });
      return row?.total ?? 0;
    },
  };
}
