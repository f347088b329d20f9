-- An export type is written in lanes: its id space split into equal ranges, each range written by its
-- own thread with its own cursor, so that a large hospital's export uses more than one core. A type's
-- progress becomes {"count", "seq", "done", "lanes": [{"after", "done"}, ...]}: count and seq are the
-- type's (its lines, its chunks: one file whatever the lanes), and it is done when every lane is.
-- A type begun before lanes ({"after", "done"} at the top) is one lane over the whole range.

-- The lanes of a type's progress `p` (null: not begun, `lanes` fresh ones).
create function records.export_lanes_of(p jsonb, lanes integer) returns jsonb
  language sql immutable as $$
  select case
    when p is null then (select jsonb_agg('{"done": false}'::jsonb) from generate_series(1, lanes))
    when p ? 'lanes' then p -> 'lanes'
    else jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('after', p -> 'after', 'done', coalesce(p -> 'done', 'false'))))
  end
$$;

-- The type's progress after lane `lane` wrote a page of `lines` and moved to `cursor` ({"after", "done"}).
create function records.export_step(p jsonb, lanes integer, lane integer, cursor jsonb, lines integer) returns jsonb
  language sql immutable as $$
  select jsonb_build_object(
    'count', coalesce((p ->> 'count')::integer, 0) + lines,
    'seq', coalesce((p ->> 'seq')::integer, 0) + sign(lines)::integer,
    'lanes', l.next,
    'done', not jsonb_path_exists(l.next, '$[*] ? (@.done == false)'))
  from (select jsonb_set(records.export_lanes_of(p, lanes), array[lane::text], cursor) as next) l
$$;
