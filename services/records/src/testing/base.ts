// The test kit's ground floor: the records process under test as the tests see it, a reply, a valid
// patient registration, tRPC's success data. index.ts and the domain fixtures (klinis.ts) build on it.
import type pg from 'pg';
import type { Principal } from '@simrs/contracts/principal';
import type { Role } from '@simrs/contracts/access';
import type { ServiceProcess } from '@simrs/platform/testing';
import { makeNik } from '../pasien/index.ts';

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RecordsUnderTest {
  url: string;
  ownerUrl: string;
  appUrl: string;
  secret: string;
  prefix: string;
  proc: ServiceProcess;
  /** Owner connection for assertions (superuser in tests: bypasses RLS). */
  owner: pg.Client;
  principal(tenantId: string, role: Role | string, overrides?: Partial<Principal>): Promise<string>;
  query<T = unknown>(path: string, input: unknown, principal?: string, headers?: Record<string, string>): Promise<Reply<T>>;
  mutate<T = unknown>(path: string, input: unknown, principal?: string, headers?: Record<string, string>): Promise<Reply<T>>;
  rest<T = unknown>(
    method: string,
    path: string,
    opts?: { body?: unknown; raw?: string; principal?: string; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  stop(): Promise<void>;
}

let serial = 0;
/** A valid registration for a patient; `n` varies the NIK and name. */
export function newPasien(n = ++serial, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const female = n % 2 === 0;
  // An adult unless the overrides say otherwise; the NIK carries the birth date either way.
  const tanggalLahir =
    typeof overrides.tanggalLahir === 'string'
      ? overrides.tanggalLahir
      : `19${String(50 + (n % 49)).padStart(2, '0')}-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}`;
  const jenisKelamin = female ? 'P' : 'L';
  return {
    nik: makeNik({ province: '32', regency: 73, district: 1 + (n % 30), tanggalLahir, jenisKelamin, serial: 1 + (n % 9999) }),
    nama: female
      ? `Siti Test ${['Aminah', 'Rahayu', 'Lestari', 'Wulandari'][n % 4]}`
      : `Budi Test ${['Santoso', 'Prasetyo', 'Hidayat', 'Saputra'][n % 4]}`,
    tempatLahir: 'Bandung',
    tanggalLahir,
    jenisKelamin,
    alamat: `Jl. Merdeka No. ${n}`,
    kotaKabupaten: 'Kota Bandung',
    provinsi: 'Jawa Barat',
    telepon: '0812-3456-7890',
    ...overrides,
  };
}

/** tRPC success data. */
export function dataOf<T = Record<string, unknown>>(reply: Reply): T {
  const body = reply.body as { result?: { data: T } };
  if (reply.status !== 200 || !body.result)
    throw new Error(`expected 200 with result, got ${reply.status}: ${JSON.stringify(reply.body).slice(0, 400)}`);
  return body.result.data;
}
