-- The outpatient visit's foundation: the hospital's clinics (poli) and which clinicians work in them,
-- the tenant's access settings, visits (kunjungan) with their append-only status history and the
-- per-day counters behind queue and visit numbers, break-the-glass grants, and the treatment
-- relationship that need-to-know access is decided by. Same rules as 002: tenant_id on every row, RLS
-- enabled and forced, records_app gets only what it uses and never DELETE.

-- Foreign keys below name the tenant too: a reference check ignores row-level security, so a key on
-- the id alone would accept another hospital's patient.
alter table records.pasien add constraint pasien_tenant_id unique (tenant_id, id);

-- Settings per hospital; a hospital without a row gets the defaults (records.setting_* below).
create table records.tenant_setting (
  tenant_id          text primary key default records.current_tenant() check (tenant_id <> ''),
  relationship_days  integer not null default 30 check (relationship_days between 0 and 365),
  btg_minutes        integer not null default 60 check (btg_minutes between 5 and 720),
  organization_id    text not null default '',
  updated_at         timestamptz not null default now(),
  updated_by         text not null
);

create table records.poli (
  id          uuid primary key default gen_random_uuid(),
  tenant_id   text not null default records.current_tenant() check (tenant_id <> ''),
  kode        text not null check (kode ~ '^[A-Z0-9-]{2,12}$'),
  nama        text not null check (btrim(nama) <> ''),
  active      boolean not null default true,
  version     integer not null default 1,
  created_at  timestamptz not null default now(),
  created_by  text not null,
  updated_at  timestamptz not null default now(),
  updated_by  text not null,
  constraint poli_kode_unique unique (tenant_id, kode),
  constraint poli_tenant_id unique (tenant_id, id)
);

-- Clinicians (the principal's user id, from identity) assigned to clinics. Unassigning keeps the row.
create table records.poli_staff (
  tenant_id     text not null default records.current_tenant() check (tenant_id <> ''),
  poli_id       uuid not null,
  user_id       text not null check (btrim(user_id) <> ''),
  active        boolean not null default true,
  assigned_at   timestamptz not null default now(),
  assigned_by   text not null,
  unassigned_at timestamptz,
  primary key (tenant_id, poli_id, user_id),
  foreign key (tenant_id, poli_id) references records.poli (tenant_id, id)
);
create index poli_staff_user on records.poli_staff (tenant_id, user_id) where active;

-- Queue numbers (per clinic per day) and visit numbers (per hospital per day): one row per counter,
-- incremented in the registering transaction. The upsert's row lock orders concurrent registrations,
-- so two clerks never draw the same number and a failed registration burns none.
create table records.kunjungan_counter (
  tenant_id  text not null default records.current_tenant() check (tenant_id <> ''),
  counter    text not null,
  tanggal    date not null,
  last_value integer not null,
  primary key (tenant_id, counter, tanggal)
);

create table records.kunjungan (
  id            uuid primary key default gen_random_uuid(),
  tenant_id     text not null default records.current_tenant() check (tenant_id <> ''),
  no_kunjungan  text not null check (no_kunjungan ~ '^RJ-[0-9]{8}-[0-9]{4,}$'),
  pasien_id     uuid not null,
  poli_id       uuid not null,
  tanggal       date not null,
  no_antrean    integer not null check (no_antrean > 0),
  status        text not null default 'planned' check (status in ('planned', 'arrived', 'in-progress', 'finished', 'cancelled')),
  cancel_reason text,
  started_at    timestamptz,
  ended_at      timestamptz,
  version       integer not null default 1,
  created_at    timestamptz not null default now(),
  created_by    text not null,
  updated_at    timestamptz not null default now(),
  updated_by    text not null,
  constraint kunjungan_no_unique unique (tenant_id, no_kunjungan),
  constraint kunjungan_antrean_unique unique (tenant_id, poli_id, tanggal, no_antrean),
  constraint kunjungan_cancel_reason check ((status = 'cancelled') = (cancel_reason is not null)),
  constraint kunjungan_tenant_id unique (tenant_id, id),
  foreign key (tenant_id, poli_id) references records.poli (tenant_id, id),
  foreign key (tenant_id, pasien_id) references records.pasien (tenant_id, id)
);
create index kunjungan_pasien on records.kunjungan (tenant_id, pasien_id, tanggal desc);

-- Every status a visit had, with its time and actor (FHIR Encounter.statusHistory). Append-only.
create table records.kunjungan_status (
  id            bigint generated always as identity primary key,
  tenant_id     text not null default records.current_tenant() check (tenant_id <> ''),
  kunjungan_id  uuid not null,
  status        text not null check (status in ('planned', 'arrived', 'in-progress', 'finished', 'cancelled')),
  at            timestamptz not null default clock_timestamp(),
  actor_user_id text not null,
  actor_role    text not null,
  reason        text,
  foreign key (tenant_id, kunjungan_id) references records.kunjungan (tenant_id, id)
);
create index kunjungan_status_visit on records.kunjungan_status (kunjungan_id, id);
create trigger kunjungan_status_no_update before update or delete on records.kunjungan_status
  for each row execute function records.audit_log_immutable();

-- Break-the-glass: a clinician without a treatment relationship opened a patient's clinical record,
-- with a written reason, until expires_at. Append-only.
create table records.btg_grant (
  id         uuid primary key default gen_random_uuid(),
  tenant_id  text not null default records.current_tenant() check (tenant_id <> ''),
  user_id    text not null,
  user_role  text not null,
  pasien_id  uuid not null,
  reason     text not null check (length(btrim(reason)) >= 10),
  opened_at  timestamptz not null default now(),
  expires_at timestamptz not null check (expires_at > opened_at),
  foreign key (tenant_id, pasien_id) references records.pasien (tenant_id, id)
);
create index btg_grant_user on records.btg_grant (tenant_id, user_id, pasien_id, expires_at desc);
create trigger btg_grant_no_update before update or delete on records.btg_grant
  for each row execute function records.audit_log_immutable();

-- Who is audited as having broken the glass, and why the access was made.
alter table records.audit_log add column break_glass boolean not null default false;
alter table records.audit_log add column purpose text;

create function records.setting_relationship_days() returns integer
  language sql stable parallel safe
  as $$ select coalesce((select relationship_days from records.tenant_setting where tenant_id = records.current_tenant()), 30) $$;

create function records.setting_btg_minutes() returns integer
  language sql stable parallel safe
  as $$ select coalesce((select btg_minutes from records.tenant_setting where tenant_id = records.current_tenant()), 60) $$;

-- The treatment relationship: the patient has a visit at one of the user's clinics that is open
-- (planned, arrived, in progress) or finished within the hospital's window. Security invoker, so
-- row-level security keeps it inside the caller's hospital.
create function records.treatment_relationship(p_user text, p_pasien uuid) returns boolean
  language sql stable parallel safe
  as $$
    select exists (
      select 1 from records.kunjungan k
      join records.poli_staff s on s.tenant_id = k.tenant_id and s.poli_id = k.poli_id and s.user_id = p_user and s.active
      where k.pasien_id = p_pasien
        and (k.status in ('planned', 'arrived', 'in-progress')
             or (k.status = 'finished' and k.ended_at >= now() - make_interval(days => records.setting_relationship_days()))))
  $$;

-- An unexpired break-the-glass grant of this user for this patient.
create function records.active_btg(p_user text, p_pasien uuid) returns boolean
  language sql stable parallel safe
  as $$ select exists (select 1 from records.btg_grant g where g.user_id = p_user and g.pasien_id = p_pasien and g.expires_at > now()) $$;

alter table records.tenant_setting enable row level security;
alter table records.tenant_setting force row level security;
create policy tenant_setting_tenant on records.tenant_setting
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.poli enable row level security;
alter table records.poli force row level security;
create policy poli_tenant on records.poli
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.poli_staff enable row level security;
alter table records.poli_staff force row level security;
create policy poli_staff_tenant on records.poli_staff
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.kunjungan_counter enable row level security;
alter table records.kunjungan_counter force row level security;
create policy kunjungan_counter_tenant on records.kunjungan_counter
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.kunjungan enable row level security;
alter table records.kunjungan force row level security;
create policy kunjungan_tenant on records.kunjungan
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.kunjungan_status enable row level security;
alter table records.kunjungan_status force row level security;
create policy kunjungan_status_read on records.kunjungan_status for select using (tenant_id = records.current_tenant());
create policy kunjungan_status_append on records.kunjungan_status for insert with check (tenant_id = records.current_tenant());
alter table records.btg_grant enable row level security;
alter table records.btg_grant force row level security;
create policy btg_grant_read on records.btg_grant for select using (tenant_id = records.current_tenant());
create policy btg_grant_append on records.btg_grant for insert with check (tenant_id = records.current_tenant());

grant select, insert, update on records.tenant_setting, records.poli, records.poli_staff, records.kunjungan_counter, records.kunjungan to records_app;
grant select, insert on records.kunjungan_status, records.btg_grant to records_app;
grant execute on function records.setting_relationship_days(), records.setting_btg_minutes(),
  records.treatment_relationship(text, uuid), records.active_btg(text, uuid) to records_app;
