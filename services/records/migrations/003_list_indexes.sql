-- Listing archived patients and reading one person's audit trail stay index scans as tables grow.
create index pasien_archived on records.pasien (tenant_id, no_rm) where status = 'archived';
create index audit_log_actor on records.audit_log (tenant_id, actor_user_id, id desc);
