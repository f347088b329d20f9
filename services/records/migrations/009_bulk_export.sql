-- FHIR Bulk Data export jobs and their output. A job and its progress live here, so any records
-- replica resumes it after a restart: each page of a type is written as one chunk in the same
-- transaction that advances that type's keyset cursor, so a page is either wholly in the output and
-- passed, or neither. Output is stored in Postgres (no shared volume to provision, every replica can
-- serve every file, and expiry is a delete); a file is the concatenation of its type's chunks by seq.
-- Rows carry their tenant and are under row-level security like every clinical table. Jobs are not
-- forced under RLS for their owner: the claim function (SECURITY DEFINER) finds due jobs of every
-- tenant, and the work itself then runs under the job's tenant.
create table records.export_job (
  id               uuid primary key default gen_random_uuid(),
  tenant_id        text not null default records.current_tenant() check (tenant_id <> ''),
  -- Who may poll and download: the client (backend service) that kicked it off.
  client_id        text not null,
  requested_by     text not null,
  patient_id       uuid,
  types            text[] not null check (cardinality(types) > 0),
  since            timestamptz,
  request_url      text not null,
  transaction_time timestamptz not null default now(),
  status           text not null default 'running' check (status in ('running', 'done', 'failed')),
  -- Per type: {"after": <last id written>, "count": <lines written>, "seq": <chunks written>, "done": bool}.
  progress         jsonb not null default '{}'::jsonb,
  error            text,
  lease_until      timestamptz,
  last_polled_at   timestamptz,
  finished_at      timestamptz,
  expires_at       timestamptz
);
-- One export at a time per tenant: a second kick-off while one runs is refused (429).
create unique index export_job_one_running on records.export_job (tenant_id) where status = 'running';
create index export_job_due on records.export_job (lease_until) where status = 'running';
create index export_job_expired on records.export_job (expires_at) where expires_at is not null;

create table records.export_chunk (
  job_id    uuid not null references records.export_job (id) on delete cascade,
  tenant_id text not null default records.current_tenant() check (tenant_id <> ''),
  type      text not null,
  seq       integer not null,
  lines     integer not null,
  body      text not null,
  primary key (job_id, type, seq)
);

alter table records.export_job enable row level security;
create policy export_job_tenant on records.export_job
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.export_chunk enable row level security;
alter table records.export_chunk force row level security;
create policy export_chunk_tenant on records.export_chunk
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());

-- A running job whose lease has lapsed (never taken, or its replica died), leased to the caller.
create function records.export_claim(lease_seconds integer) returns table (id uuid, tenant_id text)
  language sql security definer set search_path = pg_catalog, records as $$
  update records.export_job j set lease_until = now() + make_interval(secs => lease_seconds)
   where j.id = (select d.id from records.export_job d
                  where d.status = 'running' and (d.lease_until is null or d.lease_until < now())
                  order by d.transaction_time limit 1 for update skip locked)
  returning j.id, j.tenant_id
$$;

-- Finished jobs past their expiry, of every tenant: their output goes (export files, not records).
create function records.export_expire() returns integer
  language sql security definer set search_path = pg_catalog, records as $$
  with gone as (delete from records.export_job where expires_at < now() returning 1) select count(*)::integer from gone
$$;

revoke all on function records.export_claim(integer) from public;
revoke all on function records.export_expire() from public;
grant execute on function records.export_claim(integer) to records_app;
grant execute on function records.export_expire() to records_app;
grant select, insert, update, delete on records.export_job to records_app;
grant select, insert, delete on records.export_chunk to records_app;
