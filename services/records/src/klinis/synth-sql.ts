// The set-based statements of the synthetic clinical data (synth.ts), over its staging tables: synth_p
// (the tenant's patients, numbered), synth_poli (its clinics), synth_code (the code catalogue) and
// synth_k (every visit to make, numbered in time order as rn). Values are derived from hashes of the
// patient's and the visit's number, so the same patients always get the same history.
import { CHILD_YEARS, isChildSql } from './synth-catalogue.ts';
import { ageInYearsSql, referenceRange, vitalByKey } from './vital.ts';
import type { ReferenceRange } from './vital.ts';

/** `expr` against one reference range, as flagOf (vital.ts) judges it. */
function rangeFlagSql(range: ReferenceRange, expr: string): string {
  const [lo, hi] = range.normal;
  const [clo, chi] = range.critical ?? [-Infinity, Infinity];
  const below = Number.isFinite(clo) ? `${expr} < ${clo}` : 'false';
  const above = Number.isFinite(chi) ? `${expr} > ${chi}` : 'false';
  return `case when ${expr} between ${lo} and ${hi} then 'N' when ${expr} < ${lo} then case when ${below} then 'LL' else 'L' end
    else case when ${above} then 'HH' else 'H' end end`;
}

/**
 * A flag as flagOf (vital.ts) gives it for a patient `age` years old, in SQL, from the sign's own
 * ranges (so the two cannot drift).
 */
function flagSql(key: string, expr: string, age: string): string {
  const sign = vitalByKey(key)!;
  const adult = referenceRange(sign, undefined);
  if (!adult) return `'N'`;
  const bands = (sign.children ?? []).map((band) => `when ${age} < ${band.below} then ${rangeFlagSql(band, expr)}`);
  return bands.length ? `case ${bands.join(' ')} else ${rangeFlagSql(adult, expr)} end` : rangeFlagSql(adult, expr);
}
const severity = (f: string) => `case when ${f} in ('LL', 'HH') then 2 when ${f} in ('L', 'H') then 1 else 0 end`;

/**
 * Helpers for the session: a non-negative hash of a number, and ids whose first 48 bits are the
 * entry's time in milliseconds, so that rows loaded in time order land at the right-hand end of their
 * id indexes instead of all over them (the rest of the id is random).
 */
export const HELPERS = [
  `create or replace function pg_temp.h(n bigint) returns integer language sql immutable as $$ select abs(hashint8(n)) $$`,
  `create or replace function pg_temp.tid(t timestamptz) returns uuid language sql volatile as $$
     select (lpad(to_hex((extract(epoch from t) * 1000)::bigint), 12, '0') || substr(replace(gen_random_uuid()::text, '-', ''), 13))::uuid $$`,
];

/** A patient of synth_p (`p`) is among the hypertensive ($1 today): a tenth of those thirty or older. */
const hyperSql = (p: string) => `(pg_temp.h(${p}.n::bigint * 8 + 1) % 100 < 10 and ${p}.lahir <= $1::date - interval '30 years')`;

/**
 * Past visits ($1 today, $2 days of history): each patient 1 to 8 (a tenth of those thirty or older, the
 * hypertensive, 6 to 13), spread over the days in order; about 4 % cancelled, a tenth febrile (a fifth
 * of children).
 */
export const PAST_VISITS = `
  insert into synth_v (pn, pasien_id, female, lahir, hyper, k, tanggal, h)
  select c.n, c.id, c.female, c.lahir, c.hyper, g.k,
         $1::date - $2::int + floor((g.k + (pg_temp.h(c.n::bigint * 64 + g.k) % 90) / 100.0) * $2::int / c.c)::int,
         pg_temp.h(c.n::bigint * 1024 + g.k * 7 + 5) % 1000
  from (select p.*, case when p.hyper then 6 + pg_temp.h(p.n::bigint * 8 + 2) % 8 else 1 + pg_temp.h(p.n::bigint * 8 + 3) % 8 end as c
        from (select sp.*, ${hyperSql('sp')} as hyper from synth_p sp) p) c
  cross join lateral generate_series(0, c.c - 1) as g(k)`;

/**
 * Today ($1): each clinic a day of 40 to 80 visits in queue order, the first third to half finished,
 * the next two in progress, four arrived and the rest planned; every thirteenth not yet seen, cancelled.
 * The children's clinic sees children, antenatal care adult women, the others adults.
 */
export const TODAY_VISITS = `
  insert into synth_v (pn, pasien_id, female, lahir, hyper, k, tanggal, h, poli_idx, q, today_status)
  with pools as (
    select case when ${isChildSql('sp.lahir', '$1::date')} then 'ANAK' else 'ADULT' end as pool, sp.n from synth_p sp
    union all
    select 'KIA', sp.n from synth_p sp where sp.female and not ${isChildSql('sp.lahir', '$1::date')}),
  numbered as (select pools.*, row_number() over (partition by pool order by n) as gn from pools),
  sizes as (select pool, count(*) as size from pools group by pool)
  select p.n, p.id, p.female, p.lahir, ${hyperSql('p')}, 99, $1::date, pg_temp.h(p.n::bigint * 1024 + 997) % 1000,
         t.idx, g.q,
         case when g.q <= t.done then 'finished' when g.q <= t.done + 2 then 'in-progress'
              when g.q % 13 = 0 then 'cancelled' when g.q <= t.done + 6 then 'arrived' else 'planned' end
  from (select sp.idx, sp.kode, 40 + pg_temp.h(sp.idx + 99) % 41 as cnt from synth_poli sp) t0
  cross join lateral (select t0.*, t0.cnt * (30 + pg_temp.h(t0.idx + 7) % 21) / 100 as done,
                             case when t0.kode in ('ANAK', 'KIA') then t0.kode else 'ADULT' end as pool) t
  cross join lateral generate_series(1, t.cnt) as g(q)
  join sizes s on s.pool = t.pool
  join numbered pn on pn.pool = t.pool and pn.gn = 1 + ((t.idx * 100 + g.q)::bigint * 7919) % s.size
  join synth_p p on p.n = pn.n`;

/**
 * Each visit's clinic, state, diagnoses, queue and visit numbers (after those the day has drawn already),
 * times ($1 tenant, $2 today) and measurements, in time order (rn). Measurements: the hypertensive's
 * blood pressure high and slowly varying, children's signs their age's, fever raising temperature and
 * pulse, adults' weight drifting a little from visit to visit.
 */
export const STAGE_VISITS = `
  insert into synth_k (id, pn, pasien_id, poli_id, poli_kode, tanggal, k, h, hyper, fever, umur, female, status, dx1, dx2, no_antrean, seq, registered_at,
                      started_at, ended_at, sys, dia, nadi, suhu, bb)
  with v as (
    select v.*, extract(year from age(v.tanggal, v.lahir))::int as umur from synth_v v),
  f as (
    select v.*, not v.hyper and (v.h % 10 = 7 or (v.umur < 12 and v.h % 10 = 8)) as fever,
           coalesce(v.today_status, case when v.h < 40 then 'cancelled' else 'finished' end) as status from v),
  c as (
    select f.*, coalesce(pi.id, pu.id) as poli_id, coalesce(pi.kode, pu.kode) as poli_kode from f
    left join synth_poli pi on pi.kode = case
      when f.poli_idx is not null then (select kode from synth_poli where idx = f.poli_idx)
      when ${isChildSql('f.lahir', 'f.tanggal')} then 'ANAK' when f.hyper then 'PD' when f.fever then 'UMUM'
      else (case when (f.h / 10) % 16 = 9 and not f.female then 'UMUM'
            else (array['UMUM','UMUM','UMUM','UMUM','UMUM','PD','PD','GIGI','GIGI','KIA','MATA','THT','THT','KULIT','KULIT','UMUM'])[1 + (f.h / 10) % 16] end) end
    cross join (select id, kode from synth_poli order by kode <> 'UMUM', idx limit 1) pu),
  d as (
    select c.*, case when c.hyper then 'I10'
                     when c.fever then (select codes[1 + c.h / 100] from synth_dx where kode = 'FEVER')
                     else coalesce((select codes[1 + c.h % array_length(codes, 1)] from synth_dx where kode = c.poli_kode), 'Z00.0') end as dx1,
           (select codes[1 + c.h % array_length(codes, 1)] from synth_dx where kode = 'SECONDARY') as dx2c from c),
  n as (
    select d.*, case when d.dx2c <> d.dx1 and not ${isChildSql('d.lahir', 'd.tanggal')} and ((d.hyper and d.h % 3 = 0) or d.h % 8 = 1) then d.dx2c end as dx2,
           coalesce(qc.last_value, 0) + row_number() over (partition by d.poli_id, d.tanggal order by d.q nulls last, d.pn) as no_antrean,
           coalesce(nc.last_value, 0) + row_number() over (partition by d.tanggal order by d.poli_kode, d.q nulls last, d.pn) as seq
    from d
    left join records.kunjungan_counter qc on qc.tenant_id = $1 and qc.counter = 'poli:' || d.poli_id and qc.tanggal = d.tanggal
    left join records.kunjungan_counter nc on nc.tenant_id = $1 and nc.counter = 'kunjungan' and nc.tanggal = d.tanggal),
  t as (
    -- Past visits through the clinic's morning in queue order; today's within today (WIB) up to now, and
    -- started and finished by now, so that what is measured in them belongs to their day and none of it
    -- lies ahead.
    select n.*, case when n.tanggal = $2::date
                     then now() - least(now() - ($2::date::timestamp at time zone 'Asia/Jakarta'), interval '356 minutes')
                                  * ((90 - least(n.no_antrean, 85)) / 89.0)
                     else (n.tanggal + time '06:30' + make_interval(secs => 25 * least(n.no_antrean, 900)::int)) at time zone 'Asia/Jakarta'
                end as reg
    from n)
  select pg_temp.tid(t.reg), t.pn, t.pasien_id, t.poli_id, t.poli_kode, t.tanggal, t.k, t.h, t.hyper, t.fever, t.umur, t.female, t.status,
         t.dx1, t.dx2, t.no_antrean, t.seq, t.reg,
         case when t.status in ('in-progress', 'finished') then least(t.reg + interval '25 minutes', now()) end,
         case when t.status = 'finished' then least(t.reg + interval '37 minutes', now()) end,
      case when t.umur < 1 then 80 + t.pn % 18 when t.umur < 3 then 90 + t.pn % 12 when t.umur < 6 then 94 + t.pn % 14
           when t.umur < 10 then 100 + t.pn % 12 when t.umur < 13 then 106 + t.pn % 10 when t.umur < 16 then 114 + t.pn % 12
           when t.hyper then 142 + t.pn % 24 + round(7 * sin(t.k * 0.6 + t.pn))::int
           else 102 + t.pn % 30 end + (t.h % 7 - 3) as sys,
      case when t.umur < 1 then 42 + t.pn % 10 when t.umur < 3 then 48 + t.pn % 10 when t.umur < 6 then 52 + t.pn % 14
           when t.umur < 10 then 62 + t.pn % 10 when t.umur < 13 then 65 + t.pn % 10 when t.umur < 16 then 68 + t.pn % 10
           when t.hyper then 88 + t.pn % 12
           else 64 + t.pn % 18 end + (t.h % 5 - 2) as dia,
      case when t.umur < 1 then 125 + t.pn % 40 when t.umur < 3 then 104 + t.pn % 28 when t.umur < 6 then 86 + t.pn % 26
           when t.umur < 13 then 80 + t.pn % 30 else 66 + t.pn % 20 end + (t.h % 9 - 4) + case when t.fever then 18 else 0 end as nadi,
      case when t.fever then 37.8 + (t.h % 18) / 10.0 else 36.3 + (t.h % 10) / 10.0 end as suhu,
      greatest(2.5, round((case when t.umur < ${CHILD_YEARS} then 3.5 + t.umur * (2.4 + (t.pn % 10) / 10.0)
                                else (case when t.female then 45 else 52 end) + t.pn % 35 + least(t.k, 20) * ((t.pn % 7) - 3) * 0.25 end
                           + (t.h % 5 - 2) / 10.0)::numeric, 1)) as bb
  from t order by t.tanggal, t.reg, t.poli_kode`;

export const INSERT_VISITS = `
  insert into records.kunjungan (id, tenant_id, no_kunjungan, pasien_id, poli_id, tanggal, no_antrean, status, cancel_reason, started_at, ended_at,
                                 version, created_at, created_by, updated_at, updated_by)
  select k.id, $1, 'RJ-' || to_char(k.tanggal, 'YYYYMMDD') || '-' || lpad(k.seq::text, greatest(4, length(k.seq::text)), '0'),
         k.pasien_id, k.poli_id, k.tanggal, k.no_antrean, k.status, case when k.status = 'cancelled' then 'Pasien tidak datang' end,
         k.started_at, k.ended_at, s.n, k.registered_at, 'synth', coalesce(k.ended_at, k.started_at, k.registered_at + make_interval(mins => 10 * (s.n - 1))), 'synth'
  from synth_k k
  cross join lateral (select case k.status when 'planned' then 1 when 'arrived' then 2 when 'cancelled' then 2 when 'in-progress' then 3 else 4 end as n) s
  where k.rn >= $2 and k.rn < $3`;

/** Each visit's status history, as the transitions would have written it. */
export const INSERT_STATUS = `
  insert into records.kunjungan_status (tenant_id, kunjungan_id, status, at, actor_user_id, actor_role, reason)
  select $1, k.id, s.status, s.at, s.actor, s.role, s.reason
  from synth_k k
  cross join lateral (values
      (1, 'planned', k.registered_at, 'synth', 'registration_clerk', null::text),
      (2, case when k.status = 'cancelled' then 'cancelled' else 'arrived' end, k.registered_at + interval '10 minutes', 'synth', 'registration_clerk',
          case when k.status = 'cancelled' then 'Pasien tidak datang' end),
      (3, 'in-progress', k.started_at, 'synth-dokter', 'doctor', null),
      (4, 'finished', k.ended_at, 'synth-dokter', 'doctor', null)) as s(i, status, at, actor, role, reason)
  where k.rn >= $2 and k.rn < $3
    and s.i <= case k.status when 'planned' then 1 when 'arrived' then 2 when 'cancelled' then 2 when 'in-progress' then 3 else 4 end`;

const ENTRY_COLUMNS = `id, tenant_id, jenis, pasien_id, kunjungan_id, kode, kategori, peran, isi, flag, waktu, created_at, created_by, created_role,
  updated_at, updated_by, updated_role`;

/** Blood pressure, heart rate, temperature and weight of every visit in progress or finished, flagged. */
export const INSERT_VITALS = `
  insert into records.klinis (${ENTRY_COLUMNS})
  select pg_temp.tid(w.t), $1, 'vital', k.pasien_id, k.id, x.kode, 'vital-signs', null, x.isi, x.flag, w.t, w.t, 'synth-perawat', 'nurse',
         w.t, 'synth-perawat', 'nurse'
  from synth_k k
  join synth_p sp on sp.n = k.pn
  cross join lateral (select least(k.started_at + interval '3 minutes', coalesce(k.ended_at, now())) as t) w
  cross join lateral (select k.sys, k.dia, k.nadi, k.suhu, k.bb,
                             ${ageInYearsSql('sp.lahir', 'w.t')} as age) m
  cross join lateral (select ${flagSql('sistolik', 'm.sys', 'm.age')} as fs, ${flagSql('diastolik', 'm.dia', 'm.age')} as fd) bp
  cross join lateral (values
      ('85354-9', jsonb_build_object('sistolik', m.sys, 'diastolik', m.dia, 'unit', 'mm[Hg]'),
       case when ${severity('bp.fd')} > ${severity('bp.fs')} then bp.fd else bp.fs end),
      ('8867-4', jsonb_build_object('value', m.nadi, 'unit', '/min'), ${flagSql('nadi', 'm.nadi', 'm.age')}),
      ('8310-5', jsonb_build_object('value', m.suhu, 'unit', 'Cel'), ${flagSql('suhu', 'm.suhu', 'm.age')}),
      ('29463-7', jsonb_build_object('value', m.bb, 'unit', 'kg'), 'N')) as x(kode, isi, flag)
  where k.rn >= $2 and k.rn < $3 and k.status in ('in-progress', 'finished')`;

/** The primary diagnosis of every finished visit, and its secondary where it has one. */
export const INSERT_DIAGNOSES = `
  insert into records.klinis (${ENTRY_COLUMNS})
  select pg_temp.tid(w.t), $1, 'diagnosis', k.pasien_id, k.id, c.code, 'encounter-diagnosis', r.peran,
         jsonb_build_object('code', c.code, 'display', c.display_en, 'displayId', c.display_id, 'clinicalStatus', 'active'), null,
         w.t, w.t, 'synth-dokter', 'doctor', w.t, 'synth-dokter', 'doctor'
  from synth_k k
  cross join lateral (select k.ended_at - interval '4 minutes' as t) w
  cross join lateral (values ('primary', k.dx1), ('secondary', k.dx2)) as r(peran, code)
  join synth_code c on c.code = r.code
  where k.rn >= $2 and k.rn < $3 and k.status = 'finished'`;

/** A SOAP note on three finished visits in ten. */
export const INSERT_NOTES = `
  insert into records.klinis (${ENTRY_COLUMNS})
  select pg_temp.tid(w.t), $1, 'catatan', k.pasien_id, k.id, null, 'soap', null,
         jsonb_build_object('subjective', c.keluhan,
                            'objective', 'TD ' || k.sys || '/' || k.dia || ' mmHg, nadi ' || k.nadi || ' x/menit, suhu ' || k.suhu || ' C',
                            'assessment', c.code || ' ' || c.display_id, 'plan', c.rencana), null,
         w.t, w.t, 'synth-dokter', 'doctor', w.t, 'synth-dokter', 'doctor'
  from synth_k k
  cross join lateral (select k.ended_at - interval '2 minutes' as t) w
  join synth_code c on c.code = k.dx1
  where k.rn >= $2 and k.rn < $3 and k.status = 'finished' and k.h % 10 < 3`;

/**
 * Allergies of one patient in twelve or so (8 %), recorded at the first finished visit, and the
 * explicit "no known allergy" of half the others; the rest were never asked.
 */
export const INSERT_ALLERGIES = `
  insert into records.klinis (${ENTRY_COLUMNS})
  select pg_temp.tid(w.t), $1, 'alergi', p.id, k.id, a.kode, a.kategori, null, a.isi, null, w.t, w.t, 'synth-perawat', 'nurse', w.t, 'synth-perawat', 'nurse'
  from synth_p p
  cross join lateral (select pg_temp.h(p.n::bigint * 8 + 4) % 100 as r, pg_temp.h(p.n::bigint * 8 + 6) as s) x
  left join synth_k k on k.pn = p.n and k.k = 0 and k.status = 'finished'
  cross join lateral (select coalesce(k.started_at + interval '5 minutes', now() - interval '400 days') as t) w
  cross join lateral (select case when x.r < 8 then null else '716186003' end as kode,
                             case when x.r < 8 then $4::jsonb->(x.s % jsonb_array_length($4::jsonb))->>'category' else 'none' end as kategori,
                             case when x.r < 8 then ($4::jsonb->(x.s % jsonb_array_length($4::jsonb)))
                                                    || '{"clinicalStatus": "active", "verificationStatus": "confirmed"}'::jsonb
                                  else '{"noneKnown": true, "clinicalStatus": "active", "verificationStatus": "confirmed"}'::jsonb end as isi) a
  where x.r < 58 and p.n >= $2 and p.n < $3`;

/** The day's counters after the loaded visits, so that the next registration draws the next numbers. */
export const COUNTERS = `
  insert into records.kunjungan_counter as c (tenant_id, counter, tanggal, last_value)
  select $1, 'poli:' || poli_id, tanggal, max(no_antrean) from synth_k group by poli_id, tanggal
  union all
  select $1, 'kunjungan', tanggal, max(seq) from synth_k group by tanggal
  on conflict (tenant_id, counter, tanggal) do update set last_value = greatest(c.last_value, excluded.last_value)`;

/**
 * An entry insert that writes each entry's first version too, as the klinis_versi trigger would
 * (the same columns, the row as JSON without its tenant): for a load with triggers off.
 */
export const withHistory = (insert: string) => `with e as (${insert} returning *)
  insert into records.klinis_versi (tenant_id, klinis_id, version, recorded_at, data)
  select e.tenant_id, e.id, e.version, e.updated_at, to_jsonb(e) - 'tenant_id' from e`;

/** The indexes a bulk load may drop and build again afterwards: none backs a constraint or a key. */
export const REBUILDABLE = `
  select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
  from pg_index i join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace
  where n.nspname = 'records' and t.relname in ('kunjungan', 'kunjungan_status', 'klinis', 'klinis_versi')
    and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`;
