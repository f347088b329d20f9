// A patient row as SQL selects it and as the API returns it; shared by the store, the search and the
// history (the columns come from COLUMNS, the only column names that reach SQL text).
import { COLUMNS } from './schema.ts';
import type { Pasien } from './schema.ts';

export type Row = Record<string, unknown>;

const TIMESTAMPS = new Set(['createdAt', 'updatedAt', 'archivedAt']);

const selectLists = new Map<string, string>();

/** The select list of every patient field, from the table aliased `alias` (built once per alias). */
export const SELECT_PASIEN = (alias: string) => {
  let list = selectLists.get(alias);
  if (list === undefined) {
    list = Object.entries(COLUMNS)
      .map(([field, column]) => (field === 'id' ? `${alias}.id::text as "id"` : `${alias}.${column} as "${field}"`))
      .join(', ');
    selectLists.set(alias, list);
  }
  return list;
};

/** The app pool answers timestamps as ISO strings already (db/db.ts); other pools give Dates. */
const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * A selected row as the API answers it: every field of COLUMNS, in its order, and nothing else (the
 * sort keys stay behind). One object literal, so that every patient object has the same shape, which
 * JSON.stringify serialises on its fast path; `satisfies` keeps the list equal to the API's fields.
 */
export function toPasien(r: Row): Pasien {
  return {
    id: r.id,
    noRm: r.noRm,
    nik: r.nik,
    nama: r.nama,
    tempatLahir: r.tempatLahir,
    tanggalLahir: r.tanggalLahir,
    jenisKelamin: r.jenisKelamin,
    golonganDarah: r.golonganDarah,
    rhesus: r.rhesus,
    agama: r.agama,
    statusPerkawinan: r.statusPerkawinan,
    pekerjaan: r.pekerjaan,
    namaIbu: r.namaIbu,
    alamat: r.alamat,
    rt: r.rt,
    rw: r.rw,
    kelurahan: r.kelurahan,
    kecamatan: r.kecamatan,
    kotaKabupaten: r.kotaKabupaten,
    provinsi: r.provinsi,
    kodePos: r.kodePos,
    telepon: r.telepon,
    noBpjs: r.noBpjs,
    status: r.status,
    archivedAt: iso(r.archivedAt),
    archiveReason: r.archiveReason,
    version: r.version,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  } satisfies Record<keyof Pasien, unknown> as Pasien;
}

/** A stored version (records.pasien_versi.data: the row under its column names) as the API returns it. */
export function versionToPasien(data: Row): Pasien {
  const out: Row = {};
  for (const [field, column] of Object.entries(COLUMNS)) {
    const value = data[column] ?? null;
    out[field] = TIMESTAMPS.has(field) && typeof value === 'string' ? new Date(value).toISOString() : value;
  }
  return out as Pasien;
}
