-- An export type is written in lanes: its ids split into ranges of about equal rows, each range written
-- by its own thread with its own cursor, so that a large hospital's export uses more than one core. A
-- type's progress becomes {"count", "seq", "done", "lanes": [{"from", "to", "after", "done"}, ...]}:
-- count and seq are the type's (its lines, its chunks: one file whatever the lanes), a lane writes the
-- ids from "from" (inclusive) to "to" (exclusive) after its "after", and the type is done when every
-- lane is. A type begun before lanes ({"after", "done"} at the top) is one lane over every id.

-- The lanes of a type's progress `p`.
create function records.export_lanes_of(p jsonb) returns jsonb
  language sql immutable as $$
  select case
    when p ? 'lanes' then p -> 'lanes'
    when p is not null then jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('after', p -> 'after', 'done', coalesce(p -> 'done', 'false'))))
  end
$$;

-- The type's progress after lane `lane` wrote a page of `lines` and moved to `cursor`.
create function records.export_step(p jsonb, lane integer, cursor jsonb, lines integer) returns jsonb
  language sql immutable as $$
  select jsonb_build_object(
    'count', coalesce((p ->> 'count')::integer, 0) + lines,
    'seq', coalesce((p ->> 'seq')::integer, 0) + sign(lines)::integer,
    'lanes', l.next,
    'done', not jsonb_path_exists(l.next, '$[*] ? (@.done == false)'))
  from (select jsonb_set(records.export_lanes_of(p), array[lane::text], cursor) as next) l
$$;

-- Replicas from before lanes claim through records.export_claim, and would take a job that lanes began
-- for one they had never begun (no cursor at the top) and write it again from its first id: during a
-- rolling update, or after a rollback, it no longer offers them such a job. Replicas with lanes claim
-- through records.export_claim_lanes, any running job whose lease lapsed.
create or replace function records.export_claim(lease_seconds integer) returns table (id uuid, tenant_id text)
  language sql security definer set search_path = pg_catalog, records as $$
  update records.export_job j set lease_until = now() + make_interval(secs => lease_seconds)
   where j.id = (select d.id from records.export_job d
                  where d.status = 'running' and (d.lease_until is null or d.lease_until < now())
                    and not jsonb_path_exists(d.progress, '$.*.lanes')
                  order by d.transaction_time limit 1 for update skip locked)
  returning j.id, j.tenant_id
$$;

create function records.export_claim_lanes(lease_seconds integer) returns table (id uuid, tenant_id text)
  language sql security definer set search_path = pg_catalog, records as $$
  update records.export_job j set lease_until = now() + make_interval(secs => lease_seconds)
   where j.id = (select d.id from records.export_job d
                  where d.status = 'running' and (d.lease_until is null or d.lease_until < now())
                  order by d.transaction_time limit 1 for update skip locked)
  returning j.id, j.tenant_id
$$;

revoke all on function records.export_claim_lanes(integer) from public;
grant execute on function records.export_claim_lanes(integer) to records_app;
