// Loading a checked code list into records.kode, as the owner (the application role may only read it).
// One transaction: every code of the list is inserted or brought up to date and made active, and the
// system's codes the list no longer has are made inactive. Nothing is ever deleted: diagnoses refer to
// their codes for good. The list travels as three arrays in one statement (unnest), so a full ICD-10
// list of some 14,000 codes is one round trip, not one per code.
import type pg from 'pg';
import type { CodeRow, CodeSystem } from './parse.ts';

export interface LoadCounts {
  /** Codes that were not in the table. */
  added: number;
  /** Codes whose names changed, or that were inactive and are active again. */
  updated: number;
  /** Codes already there, active and named as in the list. */
  unchanged: number;
  /** Active codes of the system that the list does not have. */
  deactivated: number;
}

// xmax is 0 on a freshly inserted row and set on a row that ON CONFLICT updated: how Postgres tells
// the two apart within one statement. A row already as the list says is left alone (the WHERE), so
// its loaded_at keeps the time its content last changed.
const UPSERT_SQL = `
  with up as (
    insert into records.kode as k (system, code, display_en, display_id, active, loaded_at)
    select $1, l.code, l.display_en, l.display_id, true, now()
      from unnest($2::text[], $3::text[], $4::text[]) as l (code, display_en, display_id)
    on conflict (system, code) do update
      set display_en = excluded.display_en, display_id = excluded.display_id, active = true, loaded_at = now()
      where (k.display_en, k.display_id, k.active) is distinct from (excluded.display_en, excluded.display_id, true)
    returning (xmax = 0) as inserted
  )
  select count(*) filter (where inserted)::int as added, count(*) filter (where not inserted)::int as updated from up`;

const DEACTIVATE_SQL = `
  with gone as (
    update records.kode as k set active = false, loaded_at = now()
     where k.system = $1 and k.active and not exists (select 1 from unnest($2::text[]) as l (code) where l.code = k.code)
    returning 1
  )
  select count(*)::int as deactivated from gone`;

/**
 * Loads `rows` (already checked: parseCodeList or readCodeFile) as the whole of `system`, in one
 * transaction on `owner` (a connection as the schema's owner, not in a transaction). Loads of the same
 * system wait for each other.
 */
export async function loadCodes(owner: pg.ClientBase, system: CodeSystem, rows: readonly CodeRow[]): Promise<LoadCounts> {
  // An empty list would make every code inactive: surely a wrong file, never what an operator means.
  if (rows.length === 0) throw new Error(`no codes to load for ${system}`);
  await owner.query('begin');
  try {
    await owner.query('select pg_advisory_xact_lock(hashtext($1))', [`records.kode ${system}`]);
    const codes = rows.map((r) => r.code);
    const up = await owner.query<{ added: number; updated: number }>(UPSERT_SQL, [
      system,
      codes,
      rows.map((r) => r.displayEn),
      rows.map((r) => r.displayId),
    ]);
    const down = await owner.query<{ deactivated: number }>(DEACTIVATE_SQL, [system, codes]);
    await owner.query('commit');
    const { added, updated } = up.rows[0]!;
    return { added, updated, unchanged: rows.length - added - updated, deactivated: down.rows[0]!.deactivated };
  } catch (err) {
    await owner.query('rollback').catch(() => {});
    throw err;
  }
}

/** Whether the table holds any code of `system` (the development seed loads its list only then). */
export async function hasCodes(owner: pg.ClientBase, system: CodeSystem): Promise<boolean> {
  const { rows } = await owner.query<{ any: boolean }>('select exists (select 1 from records.kode where system = $1) as any', [system]);
  return rows[0]!.any;
}
