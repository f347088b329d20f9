// The patient form's fields as records defines them (services/records pasien.ts): which are required,
// which are choices, and how a form value becomes API input.
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../lib/trpc.ts';

export type Pasien = inferRouterOutputs<AppRouter>['pasien']['get'];

export const REQUIRED = ['nik', 'nama', 'tempatLahir', 'tanggalLahir', 'jenisKelamin', 'alamat', 'kotaKabupaten', 'provinsi'] as const;

export const CHOICES = {
  jenisKelamin: ['L', 'P'],
  golonganDarah: ['A', 'B', 'AB', 'O'],
  rhesus: ['+', '-'],
  agama: ['Islam', 'Kristen', 'Katolik', 'Hindu', 'Buddha', 'Konghucu', 'Kepercayaan'],
  statusPerkawinan: ['Belum Kawin', 'Kawin', 'Cerai Hidup', 'Cerai Mati'],
} as const;

export interface FieldSpec {
  name: FieldName;
  type?: 'text' | 'date' | 'tel' | 'numeric';
  maxLength?: number;
  autoComplete?: string;
}

/** The form's sections, in order. */
export const SECTIONS: { key: 'identity' | 'address' | 'other'; fields: FieldSpec[] }[] = [
  {
    key: 'identity',
    fields: [
      { name: 'nik', type: 'numeric', maxLength: 16 },
      { name: 'nama', maxLength: 100, autoComplete: 'off' },
      { name: 'tempatLahir', maxLength: 60 },
      { name: 'tanggalLahir', type: 'date' },
      { name: 'jenisKelamin' },
      { name: 'namaIbu', maxLength: 100 },
    ],
  },
  {
    key: 'address',
    fields: [
      { name: 'alamat', maxLength: 200 },
      { name: 'rt', type: 'numeric', maxLength: 3 },
      { name: 'rw', type: 'numeric', maxLength: 3 },
      { name: 'kelurahan', maxLength: 60 },
      { name: 'kecamatan', maxLength: 60 },
      { name: 'kotaKabupaten', maxLength: 60 },
      { name: 'provinsi', maxLength: 60 },
      { name: 'kodePos', type: 'numeric', maxLength: 5 },
    ],
  },
  {
    key: 'other',
    fields: [
      { name: 'telepon', type: 'tel', maxLength: 20 },
      { name: 'noBpjs', type: 'numeric', maxLength: 13 },
      { name: 'golonganDarah' },
      { name: 'rhesus' },
      { name: 'agama' },
      { name: 'statusPerkawinan' },
      { name: 'pekerjaan', maxLength: 60 },
    ],
  },
];

export const FIELD_NAMES = SECTIONS.flatMap((s) => s.fields.map((f) => f.name));
export type FieldName =
  | (typeof REQUIRED)[number]
  | 'namaIbu'
  | 'rt'
  | 'rw'
  | 'kelurahan'
  | 'kecamatan'
  | 'kodePos'
  | 'telepon'
  | 'noBpjs'
  | 'golonganDarah'
  | 'rhesus'
  | 'agama'
  | 'statusPerkawinan'
  | 'pekerjaan';

export type FormValues = Record<FieldName, string>;

export const isRequired = (name: FieldName) => (REQUIRED as readonly string[]).includes(name);

export function emptyForm(): FormValues {
  return Object.fromEntries(FIELD_NAMES.map((n) => [n, ''])) as FormValues;
}

export function formOf(p: Pasien): FormValues {
  return Object.fromEntries(FIELD_NAMES.map((n) => [n, (p[n] as string | null) ?? ''])) as FormValues;
}

/** Create input: every required field as typed; optional ones only when filled in. */
export function createInput(values: FormValues): Record<string, string> {
  return Object.fromEntries(FIELD_NAMES.filter((n) => isRequired(n) || values[n].trim() !== '').map((n) => [n, values[n].trim()]));
}

/** The fields whose value differs from the base; an emptied optional field becomes null. */
export function changes(values: FormValues, base: FormValues): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const n of FIELD_NAMES) {
    if (values[n].trim() === base[n].trim()) continue;
    out[n] = values[n].trim() === '' && !isRequired(n) ? null : values[n].trim();
  }
  return out;
}
