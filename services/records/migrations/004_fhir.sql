-- What the FHIR interface needs beyond the patient table: every version of every patient (FHIR vread
-- and _history), and indexes for the searches and sorts it offers.
--
-- records.pasien_versi holds one row per version: the patient row as it was written, kept by a
-- SECURITY DEFINER trigger in the very statement that inserts or updates the patient, so no change
-- escapes its history and the application role (which only reads this table) cannot forge one.
-- Same row-level security as every other table.

create table records.pasien_versi (
  tenant_id   text not null,
  pasien_id   uuid not null,
  version     integer not null,
  recorded_at timestamptz not null,
  data        jsonb not null,
  primary key (tenant_id, pasien_id, version)
);

create function records.pasien_versi_record() returns trigger
  language plpgsql security definer set search_path = pg_catalog, records
as $$
begin
  insert into records.pasien_versi (tenant_id, pasien_id, version, recorded_at, data)
    select n.tenant_id, n.id, n.version, n.updated_at, to_jsonb(n) - 'tenant_id' from new_rows n
    on conflict do nothing;
  return null;
end $$;

create trigger pasien_versi_insert after insert on records.pasien
  referencing new table as new_rows for each statement execute function records.pasien_versi_record();
create trigger pasien_versi_update after update on records.pasien
  referencing new table as new_rows for each statement execute function records.pasien_versi_record();

-- The patients already there get their current version as their first history entry. Row-level
-- security is lifted for the owner for the length of this copy only (it is FORCEd again below).
alter table records.pasien no force row level security;
insert into records.pasien_versi (tenant_id, pasien_id, version, recorded_at, data)
  select p.tenant_id, p.id, p.version, p.updated_at, to_jsonb(p) - 'tenant_id' from records.pasien p;
alter table records.pasien force row level security;

alter table records.pasien_versi enable row level security;
alter table records.pasien_versi force row level security;
create policy pasien_versi_tenant on records.pasien_versi
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());

grant select on records.pasien_versi to records_app;

-- identifier=<BPJS system>|<number>: an index scan like the NIK's.
create index pasien_no_bpjs on records.pasien (tenant_id, no_bpjs) where no_bpjs is not null;
-- _lastUpdated filters and _sort=_lastUpdated pages: an ordered range scan, keyset by (updated_at, id).
create index pasien_updated on records.pasien (tenant_id, updated_at, id);
