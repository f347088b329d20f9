-- Patients (pasien), the per-tenant medical record number counter, the name search index and the
-- append-only audit log. Every table carries tenant_id and sits under row-level security keyed on the
-- transaction-local setting app.tenant_id, which records sets from the verified principal. RLS is
-- FORCEd, so the owner's own sessions obey it too (superusers aside).
--
-- The application role records_app (created by migrate.ts before this runs) owns nothing here and
-- gets exactly: SELECT/INSERT/UPDATE on the patient tables, SELECT on the name index (kept by a
-- trigger), SELECT/INSERT on the audit log. No DELETE anywhere, no TRUNCATE, no DDL.

revoke all on schema records from public;
grant usage on schema records to records_app;

-- "Budi  Santoso " -> "budi santoso": the form names are searched in.
create function records.name_key(t text) returns text
  language sql immutable strict parallel safe
  as $$ select lower(regexp_replace(btrim(t), '\s+', ' ', 'g')) $$;

create function records.current_tenant() returns text
  language sql stable parallel safe
  as $$ select nullif(current_setting('app.tenant_id', true), '') $$;

create table records.pasien (
  id                uuid primary key default gen_random_uuid(),
  tenant_id         text not null default records.current_tenant() check (tenant_id <> ''),
  no_rm             text not null check (no_rm ~ '^[0-9]{8}$'),
  nik               text not null check (nik ~ '^[0-9]{16}$'),
  nama              text not null check (btrim(nama) <> ''),
  tempat_lahir      text not null,
  tanggal_lahir     date not null,
  jenis_kelamin     text not null check (jenis_kelamin in ('L', 'P')),
  golongan_darah    text check (golongan_darah in ('A', 'B', 'AB', 'O')),
  rhesus            text check (rhesus in ('+', '-')),
  agama             text,
  status_perkawinan text,
  pekerjaan         text,
  nama_ibu          text,
  alamat            text not null,
  rt                text,
  rw                text,
  kelurahan         text,
  kecamatan         text,
  kota_kabupaten    text not null,
  provinsi          text not null,
  kode_pos          text,
  telepon           text,
  no_bpjs           text,
  status            text not null default 'active' check (status in ('active', 'archived')),
  archived_at       timestamptz,
  archive_reason    text,
  version           integer not null default 1,
  created_at        timestamptz not null default now(),
  created_by        text not null,
  updated_at        timestamptz not null default now(),
  updated_by        text not null,
  constraint pasien_no_rm_unique unique (tenant_id, no_rm),
  constraint pasien_nik_unique unique (tenant_id, nik)
);
-- (tenant_id, no_rm) doubles as the default listing order; this one serves the birth date filter.
create index pasien_tanggal_lahir on records.pasien (tenant_id, tanggal_lahir, no_rm);

-- One row per word of a patient's name: the name from that word on ("budi santoso", "santoso").
-- A prefix search on `kunci` is an ordered index range scan that stops after one page, whatever the
-- table size. `posisi` is where that word starts in ' ' || nama_key, so a query keeps only a
-- patient's first matching word and never lists a patient twice.
create table records.pasien_nama (
  tenant_id text not null,
  kunci     text collate "C" not null,
  pasien_id uuid not null,
  posisi    integer not null,
  nama_key  text not null,
  primary key (tenant_id, kunci, pasien_id)
);
create index pasien_nama_pasien on records.pasien_nama (pasien_id);

create function records.pasien_nama_sync() returns trigger
  language plpgsql security definer set search_path = pg_catalog, records
as $$
begin
  if tg_op = 'UPDATE' then
    delete from records.pasien_nama t
      using old_rows o join new_rows n on n.id = o.id
      where t.pasien_id = o.id and o.nama is distinct from n.nama;
    insert into records.pasien_nama (tenant_id, kunci, pasien_id, posisi, nama_key)
      select w.tenant_id, substr(w.key, w.pos::int), w.id, w.pos::int, w.key
      from (
        select k.tenant_id, k.id, k.key,
               sum(length(x.word) + 1) over (partition by k.id order by x.ord) - length(x.word) as pos
        from (select n.tenant_id, n.id, records.name_key(n.nama) as key
              from new_rows n join old_rows o on o.id = n.id
              where o.nama is distinct from n.nama) k,
             unnest(string_to_array(k.key, ' ')) with ordinality as x(word, ord)
      ) w
      on conflict do nothing;
  else
    insert into records.pasien_nama (tenant_id, kunci, pasien_id, posisi, nama_key)
      select w.tenant_id, substr(w.key, w.pos::int), w.id, w.pos::int, w.key
      from (
        select k.tenant_id, k.id, k.key,
               sum(length(x.word) + 1) over (partition by k.id order by x.ord) - length(x.word) as pos
        from (select n.tenant_id, n.id, records.name_key(n.nama) as key from new_rows n) k,
             unnest(string_to_array(k.key, ' ')) with ordinality as x(word, ord)
      ) w
      on conflict do nothing;
  end if;
  return null;
end $$;

create trigger pasien_nama_insert after insert on records.pasien
  referencing new table as new_rows for each statement execute function records.pasien_nama_sync();
create trigger pasien_nama_update after update on records.pasien
  referencing old table as old_rows new table as new_rows for each statement execute function records.pasien_nama_sync();

-- Medical record numbers: one counter row per tenant, incremented in the creating transaction (so
-- a failed registration burns no number, and numbers are dense per hospital).
create table records.rm_counter (
  tenant_id  text primary key default records.current_tenant(),
  last_value bigint not null
);

create table records.audit_log (
  id            bigint generated always as identity primary key,
  tenant_id     text not null default records.current_tenant() check (tenant_id <> ''),
  occurred_at   timestamptz not null default clock_timestamp(),
  actor_user_id text not null,
  actor_role    text not null,
  client_id     text,
  action        text not null,
  pasien_ids    uuid[] not null default '{}',
  request_id    text,
  trace_id      text,
  details       jsonb not null default '{}'
);
create index audit_log_tenant on records.audit_log (tenant_id, id desc);
create index audit_log_pasien on records.audit_log using gin (pasien_ids);

-- Append-only, even for the owner: rows are never changed or removed by the application.
create function records.audit_log_immutable() returns trigger
  language plpgsql
as $$
begin
  raise exception 'audit_log is append-only' using errcode = '42501';
end $$;
create trigger audit_log_no_update before update or delete on records.audit_log
  for each row execute function records.audit_log_immutable();
create trigger audit_log_no_truncate before truncate on records.audit_log
  for each statement execute function records.audit_log_immutable();

-- Row-level security: a row is visible and writable only inside a transaction whose app.tenant_id
-- names its tenant. With no tenant set, current_tenant() is null and nothing matches.
alter table records.pasien enable row level security;
alter table records.pasien force row level security;
create policy pasien_tenant on records.pasien
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());

alter table records.pasien_nama enable row level security;
alter table records.pasien_nama force row level security;
create policy pasien_nama_tenant on records.pasien_nama
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());

alter table records.rm_counter enable row level security;
alter table records.rm_counter force row level security;
create policy rm_counter_tenant on records.rm_counter
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());

alter table records.audit_log enable row level security;
alter table records.audit_log force row level security;
create policy audit_log_read on records.audit_log for select using (tenant_id = records.current_tenant());
create policy audit_log_append on records.audit_log for insert with check (tenant_id = records.current_tenant());

grant select, insert, update on records.pasien to records_app;
grant select, insert, update on records.rm_counter to records_app;
grant select on records.pasien_nama to records_app;
grant select, insert on records.audit_log to records_app;
grant execute on function records.name_key(text), records.current_tenant() to records_app;
