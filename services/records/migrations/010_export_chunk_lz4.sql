-- Export chunks are written once, read once or twice and then expire: their text is compressed with
-- lz4 rather than Postgres' default pglz, which costs several times the CPU for about the same size
-- on NDJSON (docs/benchmarks.md, "Bulk Data export"). A server built without lz4 keeps pglz.
do $$
begin
  if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) then
    alter table records.export_chunk alter column body set compression lz4;
  end if;
end
$$;
