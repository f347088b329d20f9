-- Sending finished visits to SATUSEHAT: the hospital's connection (client id, the client secret sealed
-- by records before it is stored), the practitioners' NIKs, the platform's ids of patients,
-- practitioners and clinics (IHS numbers, Location ids), and the outbox. A visit that becomes finished
-- gets its outbox row from a trigger, so in the very transaction that finishes it; a clinical entry
-- written to a visit already sent queues the visit again (an amendment, sent as updates).

create table records.satusehat_connection (
  tenant_id     text primary key default records.current_tenant() check (tenant_id <> ''),
  environment   text not null check (environment in ('staging', 'production')),
  client_id     text not null check (btrim(client_id) <> ''),
  secret_sealed text not null check (secret_sealed like 'e1.%'),
  updated_at    timestamptz not null default now(),
  updated_by    text not null
);

-- A practitioner's NIK, filled in by the tenant admin: SATUSEHAT knows practitioners by it.
create table records.satusehat_practitioner (
  tenant_id  text not null default records.current_tenant() check (tenant_id <> ''),
  user_id    text not null check (btrim(user_id) <> ''),
  nik        text not null check (nik ~ '^[0-9]{16}$'),
  updated_at timestamptz not null default now(),
  updated_by text not null,
  primary key (tenant_id, user_id)
);

-- The platform's id for one of ours: a patient (IHS number), a practitioner (IHS number), a clinic
-- (the Location registered under the hospital's organization), a visit's Encounter, a diagnosis's
-- Condition, a vital sign's Observation. Kept once known: amendments are sent as updates of these.
create table records.satusehat_ihs (
  tenant_id  text not null default records.current_tenant() check (tenant_id <> ''),
  kind       text not null check (kind in ('patient', 'practitioner', 'location', 'encounter', 'condition', 'observation')),
  local_id   text not null,
  remote_id  text not null check (btrim(remote_id) <> ''),
  found_at   timestamptz not null default now(),
  primary key (tenant_id, kind, local_id)
);

-- One row per send of a visit: queued until a worker sends it; then sent, failed (the platform refused
-- it: its words are kept) or incomplete (someone could not be found: the reason is kept). A worker
-- claims a row for `lease` by setting locked_until and claim; only the holder of the claim records the
-- outcome.
create table records.satusehat_outbox (
  id            bigint generated always as identity primary key,
  tenant_id     text not null default records.current_tenant() check (tenant_id <> ''),
  kunjungan_id  uuid not null,
  reason        text not null check (reason in ('finished', 'amended', 'resend')),
  state         text not null default 'queued' check (state in ('queued', 'sent', 'failed', 'incomplete')),
  attempts      integer not null default 0,
  next_at       timestamptz not null default now(),
  locked_until  timestamptz,
  claim         uuid,
  last_error    text,
  updated_at    timestamptz not null default now(),
  created_at    timestamptz not null default now(),
  sent_at       timestamptz,
  foreign key (tenant_id, kunjungan_id) references records.kunjungan (tenant_id, id)
);
create index satusehat_outbox_due on records.satusehat_outbox (next_at) where state = 'queued';
create index satusehat_outbox_visit on records.satusehat_outbox (tenant_id, kunjungan_id, id desc);
create index satusehat_outbox_state on records.satusehat_outbox (tenant_id, state, id desc);

create function records.satusehat_enqueue_finished() returns trigger
  language plpgsql
as $$
begin
  insert into records.satusehat_outbox (tenant_id, kunjungan_id, reason) values (new.tenant_id, new.id, 'finished');
  return null;
end $$;
create trigger satusehat_finished after update of status on records.kunjungan
  for each row when (new.status = 'finished' and old.status <> 'finished')
  execute function records.satusehat_enqueue_finished();

-- An entry written to a finished visit whose last send went out queues the visit again, once: while a
-- send is still queued it will carry the change anyway.
create function records.satusehat_enqueue_amended() returns trigger
  language plpgsql
as $$
begin
  insert into records.satusehat_outbox (tenant_id, kunjungan_id, reason)
    select distinct n.tenant_id, n.kunjungan_id, 'amended' from new_rows n
    where n.kunjungan_id is not null and n.jenis in ('vital', 'diagnosis')
      and exists (select 1 from records.satusehat_outbox o where o.kunjungan_id = n.kunjungan_id and o.state = 'sent')
      and not exists (select 1 from records.satusehat_outbox o where o.kunjungan_id = n.kunjungan_id and o.state = 'queued');
  return null;
end $$;
create trigger satusehat_amended_insert after insert on records.klinis
  referencing new table as new_rows for each statement execute function records.satusehat_enqueue_amended();
create trigger satusehat_amended_update after update on records.klinis
  referencing new table as new_rows for each statement execute function records.satusehat_enqueue_amended();

-- The worker's claim, across hospitals: the due rows it may send, each leased for p_lease_ms under a
-- fresh claim. FOR UPDATE SKIP LOCKED: two workers never claim one row. Security definer, owned by the
-- owner role, which (alone) row-level security does not bind on this table: it answers ids only, and
-- the worker reads the visit itself under the row's tenant.
create function records.satusehat_claim(p_limit integer, p_lease_ms integer)
  returns table (id bigint, tenant_id text, kunjungan_id uuid, claim uuid, attempts integer)
  language sql security definer set search_path = pg_catalog, records
as $$
  update records.satusehat_outbox o
     set locked_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0), claim = gen_random_uuid(), attempts = o.attempts + 1
   where o.id in (select d.id from records.satusehat_outbox d
                   where d.state = 'queued' and d.next_at <= clock_timestamp() and (d.locked_until is null or d.locked_until < clock_timestamp())
                   order by d.next_at limit p_limit for update skip locked)
  returning o.id, o.tenant_id, o.kunjungan_id, o.claim, o.attempts
$$;

-- Visits per hospital and state of their latest send, for the metrics (counts only).
create function records.satusehat_counts() returns table (tenant_id text, state text, n bigint)
  language sql stable security definer set search_path = pg_catalog, records
as $$
  select l.tenant_id, l.state, count(*) from
    (select distinct on (o.kunjungan_id) o.tenant_id, o.state from records.satusehat_outbox o order by o.kunjungan_id, o.id desc) l
  group by l.tenant_id, l.state
$$;

-- How long the oldest visit still queued has waited since it was finished (0 when none): the backlog alert.
create function records.satusehat_oldest_queued() returns double precision
  language sql stable security definer set search_path = pg_catalog, records
as $$ select coalesce(extract(epoch from now() - min(o.created_at)), 0)::double precision from records.satusehat_outbox o where o.state = 'queued' $$;

alter table records.satusehat_connection enable row level security;
alter table records.satusehat_connection force row level security;
create policy satusehat_connection_tenant on records.satusehat_connection
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.satusehat_practitioner enable row level security;
alter table records.satusehat_practitioner force row level security;
create policy satusehat_practitioner_tenant on records.satusehat_practitioner
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
alter table records.satusehat_ihs enable row level security;
alter table records.satusehat_ihs force row level security;
create policy satusehat_ihs_tenant on records.satusehat_ihs
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());
-- Not FORCEd: the owner's claim and count functions above read across hospitals; records_app is bound.
alter table records.satusehat_outbox enable row level security;
create policy satusehat_outbox_tenant on records.satusehat_outbox
  using (tenant_id = records.current_tenant()) with check (tenant_id = records.current_tenant());

grant select, insert, update on records.satusehat_connection, records.satusehat_practitioner, records.satusehat_ihs,
  records.satusehat_outbox to records_app;
grant execute on function records.satusehat_claim(integer, integer), records.satusehat_counts(), records.satusehat_oldest_queued() to records_app;
