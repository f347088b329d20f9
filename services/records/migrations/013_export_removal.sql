-- Removing an export's files is bounded work, not one statement. A large hospital's export is tens of
-- thousands of chunks (gigabytes of TOAST); deleting its job with its chunks in one cascading delete
-- outlasts the statement timeout, and so did the expiry of every tenant's jobs at once, so one large job
-- kept its own files and everyone else's. Now a DELETE marks the job removed: it stops at once (lanes
-- commit only while it runs, and another export of the hospital may start) and is gone for its client
-- (it is past its expiry). Each replica's sweep then deletes the chunks of removed and expired jobs a
-- batch at a time under the job's tenant, and the job's row once it has none (bulk-sweep.ts).
alter table records.export_job drop constraint export_job_status_check;
alter table records.export_job add constraint export_job_status_check check (status in ('running', 'done', 'failed', 'removed'));

-- Removed jobs and finished jobs past their expiry, of every tenant, the longest gone first.
create function records.export_leaving(max_jobs integer) returns table (id uuid, tenant_id text)
  language sql stable security definer set search_path = pg_catalog, records as $$
  select j.id, j.tenant_id from records.export_job j where j.expires_at < now() order by j.expires_at limit max_jobs
$$;

-- Replicas from before the sweep call this every tick: it no longer deletes (a cascade that could
-- outlast the statement timeout), the sweep does. So after a rollback to such replicas, with this
-- migration kept, removed and expired jobs stay until replicas with the sweep run again.
create or replace function records.export_expire() returns integer
  language sql security definer set search_path = pg_catalog, records as $$
  select 0
$$;

revoke all on function records.export_leaving(integer) from public;
grant execute on function records.export_leaving(integer) to records_app;
