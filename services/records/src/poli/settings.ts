// The hospital's access settings (treatment-relationship window, break-the-glass duration, SATUSEHAT
// organization id), made per request from the caller's tenant scope. A hospital without a row has the
// defaults (records.setting_* in migrations/005_kunjungan.sql).
import type { TenantScope } from '../server/index.ts';
import type { Settings, UpdateSettingsInput } from './schema.ts';

type Row = Record<string, unknown>;

export function settingsStore({ db, actor }: TenantScope) {
  return {
    async getSettings(): Promise<Settings> {
      const sql = `select records.setting_relationship_days() as relationship_days, records.setting_btg_minutes() as btg_minutes,
        coalesce((select organization_id from records.tenant_setting), '') as organization_id`;
      const r = (await db.one<Row>(sql))[0]!;
      return {
        relationshipDays: Number(r.relationship_days),
        btgMinutes: Number(r.btg_minutes),
        organizationId: String(r.organization_id),
      };
    },

    async updateSettings(input: UpdateSettingsInput): Promise<Settings> {
      const sql = `insert into records.tenant_setting as t (relationship_days, btg_minutes, organization_id, updated_by)
        values (coalesce($1::int, 30), coalesce($2::int, 60), coalesce($3::text, ''), $4)
        on conflict (tenant_id) do update set
          relationship_days = coalesce($1::int, t.relationship_days), btg_minutes = coalesce($2::int, t.btg_minutes),
          organization_id = coalesce($3::text, t.organization_id), updated_at = now(), updated_by = $4
        returning relationship_days, btg_minutes, organization_id`;
      const values = [input.relationshipDays ?? null, input.btgMinutes ?? null, input.organizationId ?? null, actor.userId];
      const r = (await db.one<Row>(sql, values))[0]!;
      return {
        relationshipDays: Number(r.relationship_days),
        btgMinutes: Number(r.btg_minutes),
        organizationId: String(r.organization_id),
      };
    },
  };
}
