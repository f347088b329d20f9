-- An export type is written in lanes: its ids split into ranges of about equal rows, each range written
-- by its own thread with its own cursor, so that a large hospital's export uses more than one core. A
-- type's progress becomes {"count", "seq", "done", "lanes": [{"from", "to", "after", "done"}, ...]}:
-- count and seq are the type's (its lines, its chunks: one file whatever the lanes), a lane writes the
-- ids from "from" (inclusive) to "to" (exclusive) after its "after", and the type is done when every
-- lane is. A type begun before lanes ({"after", "done"} at the top) is one lane over every id.

-- A job's progress with every type's lanes: a type begun before lanes gets its one cursor as its one
-- lane. A job's types are given their lanes before any lane writes (beginTypes in bulk-lane.ts), so
-- the commit reads a lane's cursor from "lanes" alone.
create function records.export_with_lanes(progress jsonb) returns jsonb
  language sql immutable as $$
  select coalesce(jsonb_object_agg(t.key, case when t.value ? 'lanes' then t.value else t.value || jsonb_build_object('lanes',
           jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('after', t.value -> 'after', 'done', coalesce(t.value -> 'done', 'false')))))
         end), '{}'::jsonb)
  from jsonb_each(progress) t
$$;

-- A type's progress `p` after lane `lane` wrote a page of `lines` and moved to `cursor`.
create function records.export_step(p jsonb, lane integer, cursor jsonb, lines integer) returns jsonb
  language sql immutable as $$
  select jsonb_build_object(
    'count', (p ->> 'count')::integer + lines,
    'seq', (p ->> 'seq')::integer + sign(lines)::integer,
    'lanes', l.next,
    'done', not jsonb_path_exists(l.next, '$[*] ? (@.done == false)'))
  from (select jsonb_set(p -> 'lanes', array[lane::text], cursor) as next) l
$$;

-- Replicas from before lanes claim through records.export_claim(lease_seconds), and would take a job
-- that lanes began for one they had never begun (no cursor at the top) and write it again from its
-- first id: during a rolling update, or after a rollback, it no longer offers them such a job. Replicas
-- with lanes claim any running job whose lease lapsed: records.export_claim(lease_seconds, true).
create function records.export_claim(lease_seconds integer, with_lanes boolean) returns table (id uuid, tenant_id text)
  language sql security definer set search_path = pg_catalog, records as $$
  update records.export_job j set lease_until = now() + make_interval(secs => lease_seconds)
   where j.id = (select d.id from records.export_job d
                  where d.status = 'running' and (d.lease_until is null or d.lease_until < now())
                    and (with_lanes or not jsonb_path_exists(d.progress, '$.*.lanes'))
                  order by d.transaction_time limit 1 for update skip locked)
  returning j.id, j.tenant_id
$$;

create or replace function records.export_claim(lease_seconds integer) returns table (id uuid, tenant_id text)
  language sql security definer set search_path = pg_catalog, records as $$
  select * from records.export_claim(lease_seconds, false)
$$;

revoke all on function records.export_claim(integer, boolean) from public;
grant execute on function records.export_claim(integer, boolean) to records_app;
