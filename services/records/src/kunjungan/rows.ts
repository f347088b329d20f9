// The visit's select list (with its status history) and the row-to-API mapping, shared by the store
// and the transitions.
import type { Kunjungan, Status } from './schema.ts';

export type Row = Record<string, unknown>;

/** The hospital's day: Indonesian hospitals in WIB; queue and visit numbers restart with it. */
export const TODAY = "(now() at time zone 'Asia/Jakarta')::date";

const UTC_ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export const SELECT_KUNJUNGAN = `k.id::text as id, k.no_kunjungan, k.pasien_id::text as pasien_id, ps.nama as pasien_nama, ps.no_rm,
  k.poli_id::text as poli_id, pl.nama as poli_nama, to_char(k.tanggal, 'YYYY-MM-DD') as tanggal, k.no_antrean, k.status,
  k.cancel_reason, k.started_at, k.ended_at, k.version, k.created_at, k.updated_at,
  (select coalesce(json_agg(json_build_array(s.status, to_char(s.at at time zone 'UTC', ${UTC_ISO}), s.actor_user_id, s.actor_role, s.reason)
     order by s.id), '[]'::json)
   from records.kunjungan_status s where s.kunjungan_id = k.id) as riwayat`;

/**
 * One status of the history as the select list gives it: positional, because Postgres builds a JSON
 * array in a fraction of the time of an object with its keys (every visit read pays it per status).
 */
type HistoryRow = [Status, string, string, string, string | null];

const toHistory = ([status, at, actorUserId, actorRole, reason]: HistoryRow): Kunjungan['statusHistory'][number] => ({
  status,
  at,
  actorUserId,
  actorRole,
  reason,
});

export const FROM_KUNJUNGAN = 'records.kunjungan k join records.pasien ps on ps.id = k.pasien_id join records.poli pl on pl.id = k.poli_id';

const orNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

export function toKunjungan(r: Row): Kunjungan {
  return {
    id: String(r.id),
    noKunjungan: String(r.no_kunjungan),
    pasienId: String(r.pasien_id),
    pasienNama: String(r.pasien_nama),
    noRm: String(r.no_rm),
    poliId: String(r.poli_id),
    poliNama: String(r.poli_nama),
    tanggal: String(r.tanggal),
    noAntrean: Number(r.no_antrean),
    status: r.status as Status,
    cancelReason: orNull(r.cancel_reason),
    startedAt: orNull(r.started_at),
    endedAt: orNull(r.ended_at),
    version: Number(r.version),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    statusHistory: (r.riwayat as HistoryRow[]).map(toHistory),
  };
}
