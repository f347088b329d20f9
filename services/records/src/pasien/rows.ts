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

/** Where each field sits in a row selected with SELECT_PASIEN and read as an array (COLUMNS order). */
const AT = Object.fromEntries(Object.keys(COLUMNS).map((field, i) => [field, i])) as Record<keyof Pasien, number>;
/** How many values SELECT_PASIEN selects: what a query adds after them starts at this position. */
export const PASIEN_WIDTH = Object.keys(COLUMNS).length;

/**
 * A selected row read as an array (db.one with rowMode 'array'; SELECT_PASIEN's values first, then
 * whatever the query adds, such as sort keys) as the API answers it: every field of COLUMNS, in its
 * order, and nothing else. One object literal, so that every patient object has the same shape, which
 * JSON.stringify serialises on its fast path; `satisfies` keeps the list equal to the API's fields.
 */
export function toPasienFromArray(a: readonly unknown[]): Pasien {
  return {
    id: a[AT.id],
    noRm: a[AT.noRm],
    nik: a[AT.nik],
    nama: a[AT.nama],
    tempatLahir: a[AT.tempatLahir],
    tanggalLahir: a[AT.tanggalLahir],
    jenisKelamin: a[AT.jenisKelamin],
    golonganDarah: a[AT.golonganDarah],
    rhesus: a[AT.rhesus],
    agama: a[AT.agama],
    statusPerkawinan: a[AT.statusPerkawinan],
    pekerjaan: a[AT.pekerjaan],
    namaIbu: a[AT.namaIbu],
    alamat: a[AT.alamat],
    rt: a[AT.rt],
    rw: a[AT.rw],
    kelurahan: a[AT.kelurahan],
    kecamatan: a[AT.kecamatan],
    kotaKabupaten: a[AT.kotaKabupaten],
    provinsi: a[AT.provinsi],
    kodePos: a[AT.kodePos],
    telepon: a[AT.telepon],
    noBpjs: a[AT.noBpjs],
    status: a[AT.status],
    archivedAt: iso(a[AT.archivedAt]),
    archiveReason: a[AT.archiveReason],
    version: a[AT.version],
    createdAt: iso(a[AT.createdAt]),
    updatedAt: iso(a[AT.updatedAt]),
  } satisfies Record<keyof Pasien, unknown> as Pasien;
}

const FIELDS = Object.keys(COLUMNS) as Array<keyof Pasien>;

/** The same for a row read by name (SELECT_PASIEN's aliases are the API's field names). */
export function toPasien(r: Row): Pasien {
  const values = new Array<unknown>(FIELDS.length);
  for (let i = 0; i < FIELDS.length; i++) values[i] = r[FIELDS[i]!];
  return toPasienFromArray(values);
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
