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
