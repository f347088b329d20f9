// Reading clinical entries: one, a visit's or a patient's, and every version of one. Each read appends
// its audit row in the same statement, and only when something was found.
import type { ClinicalKind } from '../access/index.ts';
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import type { Entry, ListInput } from './schema.ts';
import { ENTRY_NOT_FOUND, SELECT_ENTRY, toEntry } from './rows.ts';
import type { Row } from './rows.ts';

/** Narrows a read by id to what the caller may see: its categories (a SMART scope's), its patient (a launch patient). */
export interface Only {
  kategori?: readonly string[] | undefined;
  pasienId?: string | undefined;
}

function onlySql(p: (v: unknown) => string, only: Only): string {
  const parts = ['true'];
  if (only.kategori) parts.push(`e.kategori = any(${p(only.kategori)}::text[])`);
  if (only.pasienId) parts.push(`e.pasien_id = ${p(only.pasienId)}::uuid`);
  return parts.join(' and ');
}

export function klinisReads({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor(actor);
  return {
    /** One entry of `kind` (entered-in-error ones too, marked as such). */
    async get(kind: ClinicalKind, id: string, extra: Record<string, string> = {}, only: Only = {}): Promise<Entry> {
      const { values, p } = params();
      const sql = `with found as (select ${SELECT_ENTRY} from records.klinis e where e.id = ${p(id)}::uuid and e.jenis = ${p(kind)}
          and ${onlySql(p, only)}),
        audit as (${auditInsert(p, 'klinis.read', 'array[found.pasien_id::uuid]', { ...extra, jenis: kind, klinisId: id })} from found)
        select * from found`;
      const [row] = await db.one<Row>(sql, values);
      if (!row) throw ENTRY_NOT_FOUND();
      return toEntry(row);
    },

    /** A visit's or a patient's entries of `kind`, newest first. */
    async list(kind: ClinicalKind, input: ListInput, extra: Record<string, string> = {}): Promise<Entry[]> {
      const { values, p } = params();
      const where = [`e.jenis = ${p(kind)}`];
      if (input.kunjunganId) where.push(`e.kunjungan_id = ${p(input.kunjunganId)}::uuid`);
      if (input.pasienId) where.push(`e.pasien_id = ${p(input.pasienId)}::uuid`);
      if (!input.includeEnteredInError) where.push('not e.entered_in_error');
      const filters = Object.keys(input).filter((k) => k !== 'limit');
      // The patient the list is about, found or not: an empty list is clinical content too.
      const subject = input.pasienId
        ? `array[${p(input.pasienId)}::uuid]`
        : `array(select k.pasien_id from records.kunjungan k where k.id = ${p(input.kunjunganId)}::uuid)`;
      const sql = `with page as (select ${SELECT_ENTRY} from records.klinis e where ${where.join(' and ')}
          order by e.waktu desc, e.id limit ${p(input.limit)}),
        audit as (${auditInsert(p, 'klinis.read', subject, { ...extra, jenis: kind, filters: filters.join(',') })})
        select * from page`;
      return (await db.one<Row>(sql, values)).map(toEntry);
    },

    /** Every version of one entry, newest first (empty: no such entry of this kind). */
    async versions(kind: ClinicalKind, id: string, extra: Record<string, string> = {}, only: Only = {}): Promise<Entry[]> {
      const { values, p } = params();
      const sql = `with page as (select v.data from records.klinis_versi v join records.klinis e on e.id = v.klinis_id
          where v.klinis_id = ${p(id)}::uuid and e.jenis = ${p(kind)} and ${onlySql(p, only)} order by v.version desc),
        audit as (${auditInsert(p, 'klinis.read', `array[(select pasien_id from records.klinis where id = ${p(id)}::uuid)]`, { ...extra, jenis: kind, klinisId: id, interaction: 'history' })}
          where exists (select 1 from page))
        select * from page`;
      const rows = await db.one<{ data: Row }>(sql, values);
      if (rows.length === 0) throw ENTRY_NOT_FOUND();
      return rows.map((r) => versionToEntry(r.data));
    },
  };
}

/** A stored version (the row as JSON) as the API's entry. */
export function versionToEntry(d: Row): Entry {
  const iso = (v: unknown) => new Date(String(v)).toISOString();
  return toEntry({
    ...d,
    id: d.id,
    waktu: iso(d.waktu),
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  });
}
