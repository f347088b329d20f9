// An entry's select list and the row-to-API mapping, shared by the writes, the reads and FHIR.
import { TRPCError } from '@trpc/server';
import type { ClinicalKind } from '../access/index.ts';
import type { Entry } from './schema.ts';

export type Row = Record<string, unknown>;

export const SELECT_ENTRY = `e.id::text as id, e.jenis, e.pasien_id::text as pasien_id, e.kunjungan_id::text as kunjungan_id, e.kode,
  e.kategori, e.peran, e.isi, e.flag, e.waktu, e.entered_in_error, e.alasan, e.version, e.created_at, e.created_by, e.created_role,
  e.updated_at, e.updated_by, e.updated_role`;

export function toEntry(r: Row): Entry {
  return {
    id: String(r.id),
    jenis: r.jenis as ClinicalKind,
    pasienId: String(r.pasien_id),
    kunjunganId: (r.kunjungan_id as string | null) ?? null,
    kode: (r.kode as string | null) ?? null,
    kategori: String(r.kategori),
    peran: (r.peran as Entry['peran']) ?? null,
    isi: r.isi as Record<string, unknown>,
    flag: (r.flag as Entry['flag']) ?? null,
    waktu: String(r.waktu),
    enteredInError: r.entered_in_error === true,
    reason: (r.alasan as string | null) ?? null,
    version: Number(r.version),
    createdAt: String(r.created_at),
    createdBy: String(r.created_by),
    createdRole: String(r.created_role),
    updatedAt: String(r.updated_at),
    updatedBy: String(r.updated_by),
    updatedRole: String(r.updated_role),
  };
}

export const ENTRY_NOT_FOUND = () => new TRPCError({ code: 'NOT_FOUND', message: 'clinical entry not found' });
