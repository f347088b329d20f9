// What the MCP tools call: the records procedures themselves, through tRPC's server-side caller (the
// same guards, scopes, permission matrix, need-to-know check and audit rows as every other surface).
// Only the shape is declared here; server/server.ts hands in the app router's caller, which fits it.
import type { Entry } from '../klinis/index.ts';
import type { Kunjungan } from '../kunjungan/index.ts';
import type { Pasien } from '../pasien/index.ts';
import type { Context } from '../server/index.ts';

interface EntryList {
  list(input: { pasienId?: string; kunjunganId?: string; limit?: number }): Promise<Entry[]>;
}

/** The procedures the tools reach, as the tRPC caller offers them. */
export interface RecordsCalls {
  pasien: {
    list(input: { q?: string; nik?: string; noRm?: string; tanggalLahir?: string; limit?: number }): Promise<{ items: Pasien[] }>;
    get(input: { id: string }): Promise<Pasien>;
  };
  kunjungan: {
    list(input: {
      poliId?: string;
      pasienId?: string;
      tanggal?: string;
      status?: Kunjungan['status'];
      limit?: number;
    }): Promise<Kunjungan[]>;
    get(input: { id: string }): Promise<Kunjungan>;
  };
  poli: { list(input: { includeInactive?: boolean }): Promise<Array<{ id: string; kode: string; nama: string }>> };
  vital: EntryList & {
    record(input: {
      kunjunganId: string;
      measurements: Array<{ key: string; value: number; unit: string }>;
      waktu?: string;
    }): Promise<Entry[]>;
  };
  diagnosis: EntryList;
  alergi: EntryList;
  catatan: EntryList;
}

/** Builds the caller for one request's context (the principal, its tenant scope, the actor audited). */
export type CallerFor = (ctx: Context) => RecordsCalls;
