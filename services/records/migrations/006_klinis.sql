-- Clinical content of the outpatient visit: vital signs, diagnoses, allergies and the visit's SOAP
-- note, as entries (records.klinis) of one shape, every version kept (records.klinis_versi), and the
-- code systems diagnoses are coded in (records.kode). Same rules as 002 and 005: tenant_id on every
-- tenant row, RLS enabled and forced, records_app gets only what it uses and never DELETE.

-- Code systems the platform loads (ICD-10 for diagnoses): the platform's, not a hospital's.
create table records.kode (
  system      text not null check (system in ('icd-10')),
  code        text not null check (code ~ '^[A-Z][0-9]{2}(\.[0-9A-Z]{1,4})?$'),
  display_en  text not null check (btrim(display_en) <> ''),
  display_id  text not null check (btrim(display_id) <> ''),
  active      boolean not null default true,
  loaded_at   timestamptz not null default now(),
  primary key (system, code)
);
create index kode_display on records.kode (system, lower(display_en), lower(display_id));
grant select on records.kode to records_app;

-- One clinical entry: what it is (jenis), whose it is, the visit it was recorded in (allergies belong
-- to the patient and may be recorded outside a visit), its code, and its content (isi), whose shape
-- each kind declares (src/klinis/kinds/). Corrections raise the version with a reason; a wrong entry
-- is marked entered-in-error with a reason and stays. The trigger below refuses anything else.
create table records.klinis (
  id               uuid primary key default gen_random_uuid(),
  tenant_id        text not null default records.current_tenant() check (tenant_id <> ''),
  jenis            text not null check (jenis in ('vital', 'diagnosis', 'alergi', 'catatan')),
  pasien_id        uuid not null,
  kunjungan_id     uuid,
  kode             text,
  kategori         text not null,
  peran            text check (peran in ('primary', 'secondary')),
  isi              jsonb not null,
  flag             text check (flag in ('N', 'L', 'H', 'LL', 'HH')),
  waktu            timestamptz not null default now(),
  entered_in_error boolean not null default false,
  alasan           text check (alasan is null or length(btrim(alasan)) >= 5),
  version          integer not null default 1,
  created_at       timestamptz not null default now(),
  created_by       text not null,
  created_role     text not null,
  updated_at       timestamptz not null default now(),
  updated_by       text not null,
  updated_role     text not null,
  constraint klinis_in_visit check (jenis = 'alergi' or kunjungan_id is not null),
  constraint klinis_diagnosis_role check ((jenis = 'diagnosis') = (peran is not null)),
  constraint klinis_changed_with_reason check (version = 1 or alasan is not null),
  constraint klinis_tenant_id unique (tenant_id, id),
  foreign key (tenant_id, pasien_id) references records.pasien (tenant_id, id),
  foreign key (tenant_id, kunjungan_id) references records.kunjungan (tenant_id, id)
);
create index klinis_visit on records.klinis (kunjungan_id, jenis, waktu);
create index klinis_patient on records.klinis (tenant_id, pasien_id, jenis, waktu desc);
create index klinis_updated on records.klinis (tenant_id, updated_at, id);
-- A visit has at most one primary diagnosis and one note in force.
create unique index klinis_one_primary on records.klinis (kunjungan_id)
  where jenis = 'diagnosis' and peran = 'primary' and not entered_in_error;
create unique index klinis_one_note on records.klinis (kunjungan_id) where jenis = 'catatan' and not entered_in_error;

-- Never silently changed: an update is a new version (one up) with a reason, and what the entry is
-- and whom it is about never changes; an entered-in-error entry is final.
create function records.klinis_guard() returns trigger
  language plpgsql
as $$
begin
  if new.version <> old.version + 1 then
    raise exception 'a clinical entry changes only as its next version' using errcode = '23514';
  end if;
  if new.alasan is null then
    raise exception 'a clinical entry changes only with a reason' using errcode = '23514';
  end if;
  if old.entered_in_error then
    raise exception 'an entry marked entered-in-error does not change' using errcode = '23514';
  end if;
  if (new.id, new.tenant_id, new.jenis, new.pasien_id, new.kunjungan_id, new.created_at, new.created_by, new.created_role)
     is distinct from (old.id, old.tenant_id, old.jenis, old.pasien_id, old.kunjungan_id, old.created_at, old.created_by, old.created_role) then
    raise exception 'what a clinical entry is and whom it is about never change' using errcode = '23514';
  end if;
  return new;
end $$;
create trigger klinis_guard before update on records.klinis for each row execute function records.klinis_guard();
create trigger klinis_no_delete before delete or truncate on records.klinis
  for each statement execute function records.audit_log_immutable();

-- Every version of every entry, written by a SECURITY DEFINER trigger in the statement that writes
-- the entry (as records.pasien_versi), so no change escapes its history and records_app cannot forge one.
create table records.klinis_versi (
  tenant_id   text not null,
  klinis_id   uuid not null,
  version     integer not null,
  recorded_at timestamptz not null,
  data        jsonb not null,
  primary key (tenant_id, klinis_id, version)
);

create function records.klinis_versi_record() returns trigger
  language plpgsql security definer set search_path = pg_catalog, records
as $$
begin
  insert into records.klinis_versi (tenant_id, klinis_id, version, recorded_at, data)
    select n.tenant_id, n.id, n.version, n.updated_at, to_jsonb(n) - 'tenant_id' from new_rows n;
  return null;
end $$;
create trigger klinis_versi_insert after insert on records.klinis
  referencing new table as new_rows for each statement execute function records.klinis_versi_record();
create trigger klinis_versi_update after update on records.klinis
  referencing new table as new_rows for each statement execute function records.klinis_versi_record();
create trigger klinis_versi_no_update before update or delete on records.klinis_versi
  for each row execute function records.audit_log_immutable();

alter table records.klinis enable row level security;
alter table records.klinis force row level security;
create policy klinis_tenant on records.klinis
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.klinis_versi enable row level security;
alter table records.klinis_versi force row level security;
create policy klinis_versi_read on records.klinis_versi for select using (tenant_id = records.current_tenant());
create policy klinis_versi_append on records.klinis_versi for insert with check (tenant_id = records.current_tenant());

grant select, insert, update on records.klinis to records_app;
grant select on records.klinis_versi to records_app;
