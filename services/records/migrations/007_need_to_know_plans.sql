-- The need-to-know checks (records.treatment_relationship and records.active_btg, 005) as PL/pgSQL.
-- A LANGUAGE sql function whose body holds a subquery is never inlined, and Postgres plans its body
-- again on every execution of the statement that calls it; PL/pgSQL keeps each statement's plan for
-- the session. Every clinical read and write runs this check, so its planning dominated it. Same
-- meaning, same security (invoker: row-level security keeps it inside the caller's hospital); the
-- hospital's window is read once per call instead of once per visit looked at.

create or replace function records.treatment_relationship(p_user text, p_pasien uuid) returns boolean
  language plpgsql stable parallel safe
  as $$
  declare
    window_start timestamptz := now() - make_interval(days => records.setting_relationship_days());
  begin
    return exists (
      select 1 from records.kunjungan k
      join records.poli_staff s on s.tenant_id = k.tenant_id and s.poli_id = k.poli_id and s.user_id = p_user and s.active
      where k.pasien_id = p_pasien
        and (k.status in ('planned', 'arrived', 'in-progress') or (k.status = 'finished' and k.ended_at >= window_start)));
  end
  $$;

create or replace function records.active_btg(p_user text, p_pasien uuid) returns boolean
  language plpgsql stable parallel safe
  as $$
  begin
    return exists (
      select 1 from records.btg_grant g
      where g.tenant_id = records.current_tenant() and g.user_id = p_user and g.pasien_id = p_pasien and g.expires_at > now());
  end
  $$;
