// Every version of a patient (records.pasien_versi, kept by a trigger on every insert and update):
// what FHIR's vread and _history read. Each read appends its audit row (`pasien.get`, with the
// interaction in the details) in the same statement, and only when the patient exists.
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import { versionToPasien } from './rows.ts';
import type { Row } from './rows.ts';
import type { Pasien } from './schema.ts';
import type { AuditExtra } from './store.ts';

export interface PasienVersion {
  pasien: Pasien;
  /** When this version was written. */
  recordedAt: string;
}

export function pasienHistory({ db, actor }: TenantScope) {
  const auditInsert = auditInsertFor(actor);
  const toVersion = (r: Row): PasienVersion => ({
    pasien: versionToPasien(r.data as Row),
    recordedAt: (r.recorded_at as Date).toISOString(),
  });

  return {
    /** Versions newest first, `limit` of them below version `before` (all when undefined); none: no such patient. */
    async versions(
      id: string,
      opts: { limit: number; before?: number },
      extra: AuditExtra = {},
    ): Promise<{ items: PasienVersion[]; more: boolean }> {
      const { values, p } = params();
      const sql = `with page as (
          select v.version, v.recorded_at, v.data from records.pasien_versi v
          where v.pasien_id = ${p(id)}::uuid and v.version < ${p(opts.before ?? 2147483647)}
          order by v.version desc limit ${p(opts.limit)} + 1),
        audit as (${auditInsert(p, 'pasien.get', `array[${p(id)}::uuid]`, { ...extra, interaction: 'history' })} where exists (select 1 from page))
        select * from page order by version desc`;
      const rows = await db.one<Row>(sql, values);
      return { items: rows.slice(0, opts.limit).map(toVersion), more: rows.length > opts.limit };
    },

    /** One version, or undefined when the patient or that version does not exist. */
    async version(id: string, version: number, extra: AuditExtra = {}): Promise<PasienVersion | undefined> {
      const { values, p } = params();
      const sql = `with found as (
          select v.version, v.recorded_at, v.data from records.pasien_versi v where v.pasien_id = ${p(id)}::uuid and v.version = ${p(version)}),
        audit as (${auditInsert(p, 'pasien.get', `array[${p(id)}::uuid]`, { ...extra, interaction: 'vread' })} where exists (select 1 from found))
        select * from found`;
      const rows = await db.one<Row>(sql, values);
      return rows[0] ? toVersion(rows[0]) : undefined;
    },
  };
}
