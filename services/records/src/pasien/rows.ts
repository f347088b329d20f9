// A patient row as SQL selects it and as the API returns it; shared by the store, the search and the
// history (the columns come from COLUMNS, the only column names that reach SQL text).
import { COLUMNS } from './schema.ts';
import type { Pasien } from './schema.ts';

export type Row = Record<string, unknown>;

const TIMESTAMPS = new Set(['createdAt', 'updatedAt', 'archivedAt']);

/** The select list of every patient field, from the table aliased `alias`. */
export const SELECT_PASIEN = (alias: string) =>
  Object.entries(COLUMNS)
    .map(([field, column]) => (field === 'id' ? `${alias}.id::text as "id"` : `${alias}.${column} as "${field}"`))
    .join(', ');

export function toPasien(row: Row): Pasien {
  const out: Row = {};
  for (const field of Object.keys(COLUMNS)) {
    const value = row[field];
    out[field] = TIMESTAMPS.has(field) && value instanceof Date ? value.toISOString() : value;
  }
  return out as Pasien;
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
