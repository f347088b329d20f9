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
