// The patient record (pasien) as the API sees it: input schemas with one message per field, the
// output schema, and the list/get/archive inputs. Objects are strict: an unknown field is an error.
import { z } from 'zod';
import { nikMismatch, parseNik } from './nik.ts';

// Text that is safe to store and show: letters, marks, digits, spaces and ordinary punctuation. No
// control or format characters (NUL, bidi overrides, zero-width tricks), no quotes other than the
// apostrophe, no ; = < > % * \ " ` (so no markup and nothing that looks like SQL).
const SAFE_TEXT = /^[\p{L}\p{M}\p{N} .,'/()#&:+-]*$/u;
const NAME_TEXT = /^[\p{L}\p{M} .,'-]+$/u;

export const text = (field: string, max: number, pattern = SAFE_TEXT) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`)
    .regex(pattern, `${field} contains characters that are not allowed`);

const optionalText = (field: string, max: number) => text(field, max).nullable().optional();

export const nama = (field = 'nama') => text(field, 100, NAME_TEXT).refine((v) => /\p{L}/u.test(v), `${field} must contain letters`);

export const isoDate = (field: string) =>
  z
    .string({ error: `${field} must be a date YYYY-MM-DD` })
    .regex(/^\d{4}-\d{2}-\d{2}$/, `${field} must be a date YYYY-MM-DD`)
    .refine((v) => {
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
    }, `${field} is not a calendar date`);

const tanggalLahir = isoDate('tanggalLahir').refine((v) => v >= '1900-01-01' && v <= new Date().toISOString().slice(0, 10), {
  message: 'tanggalLahir must be between 1900-01-01 and today',
});

export const nik = z.string({ error: 'nik must be a string of 16 digits' }).superRefine((v, ctx) => {
  const parsed = parseNik(v);
  if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
});

export const JENIS_KELAMIN = ['L', 'P'] as const;
export const GOLONGAN_DARAH = ['A', 'B', 'AB', 'O'] as const;
export const RHESUS = ['+', '-'] as const;
export const AGAMA = ['Islam', 'Kristen', 'Katolik', 'Hindu', 'Buddha', 'Konghucu', 'Kepercayaan'] as const;
export const STATUS_PERKAWINAN = ['Belum Kawin', 'Kawin', 'Cerai Hidup', 'Cerai Mati'] as const;

const choice = <T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.enum(values, { error: `${field} must be one of ${values.join(', ')}` });

/** +62 / 62 / 0 followed by 8 to 12 digits; spaces and dashes allowed. Stored as +62... */
export const telepon = z
  .string({ error: 'telepon must be a phone number' })
  .regex(/^(\+62|62|0)[\d\s-]{8,16}$/, 'telepon must start with +62, 62 or 0 (e.g. +62 812-3456-7890 or 0812 3456 7890)')
  .refine((v) => /^(\+62|62|0)[2-9]\d{7,11}$/.test(v.replace(/[\s-]/g, '')), 'telepon must have 9 to 13 digits after the prefix');

export function normalizePhone(value: string): string {
  const digits = value.replace(/[\s-]/g, '');
  return `+62${digits.replace(/^(\+62|62|0)/, '')}`;
}

/** Every writable field. Required ones are required on create; all are optional on update. */
export const pasienFields = {
  nik,
  nama: nama(),
  tempatLahir: text('tempatLahir', 60),
  tanggalLahir,
  jenisKelamin: choice('jenisKelamin', JENIS_KELAMIN),
  golonganDarah: choice('golonganDarah', GOLONGAN_DARAH).nullable().optional(),
  rhesus: choice('rhesus', RHESUS).nullable().optional(),
  agama: choice('agama', AGAMA).nullable().optional(),
  statusPerkawinan: choice('statusPerkawinan', STATUS_PERKAWINAN).nullable().optional(),
  pekerjaan: optionalText('pekerjaan', 60),
  namaIbu: nama('namaIbu').nullable().optional(),
  alamat: text('alamat', 200),
  rt: z
    .string({ error: 'rt must be text' })
    .regex(/^\d{1,3}$/, 'rt must be 1 to 3 digits')
    .nullable()
    .optional(),
  rw: z
    .string({ error: 'rw must be text' })
    .regex(/^\d{1,3}$/, 'rw must be 1 to 3 digits')
    .nullable()
    .optional(),
  kelurahan: optionalText('kelurahan', 60),
  kecamatan: optionalText('kecamatan', 60),
  kotaKabupaten: text('kotaKabupaten', 60),
  provinsi: text('provinsi', 60),
  kodePos: z
    .string({ error: 'kodePos must be text' })
    .regex(/^\d{5}$/, 'kodePos must be 5 digits')
    .nullable()
    .optional(),
  telepon: telepon.nullable().optional(),
  noBpjs: z
    .string({ error: 'noBpjs must be text' })
    .regex(/^\d{13}$/, 'noBpjs must be 13 digits')
    .nullable()
    .optional(),
};

export type PasienFieldName = keyof typeof pasienFields;

export const createPasienInput = z
  .strictObject(pasienFields, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : 'input must be an object'),
  })
  .superRefine((v, ctx) => {
    const problem = nikMismatch(v.nik, v.tanggalLahir, v.jenisKelamin);
    if (problem && !('error' in parseNik(v.nik))) ctx.addIssue({ code: 'custom', path: ['nik'], message: problem });
  });
export type CreatePasienInput = z.infer<typeof createPasienInput>;

const uuid = (field: string) => z.string({ error: `${field} must be a patient id (UUID)` }).uuid(`${field} must be a patient id (UUID)`);

const {
  nik: _n,
  nama: _a,
  tempatLahir: _t,
  tanggalLahir: _d,
  jenisKelamin: _j,
  alamat: _l,
  kotaKabupaten: _k,
  provinsi: _p,
  ...optionals
} = pasienFields;

export const updatePasienInput = z.strictObject(
  {
    id: uuid('id'),
    expectedVersion: z.number({ error: 'expectedVersion must be a number' }).int().positive().optional(),
    nik: pasienFields.nik.optional(),
    nama: pasienFields.nama.optional(),
    tempatLahir: pasienFields.tempatLahir.optional(),
    tanggalLahir: pasienFields.tanggalLahir.optional(),
    jenisKelamin: pasienFields.jenisKelamin.optional(),
    alamat: pasienFields.alamat.optional(),
    kotaKabupaten: pasienFields.kotaKabupaten.optional(),
    provinsi: pasienFields.provinsi.optional(),
    ...optionals,
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : 'input must be an object') },
);
export type UpdatePasienInput = z.infer<typeof updatePasienInput>;

export const getPasienInput = z.strictObject({ id: uuid('id') });

export const archivePasienInput = z.strictObject({
  id: uuid('id'),
  reason: text('reason', 200),
});

export const LIST_STATUS = ['active', 'archived', 'all'] as const;

export const listPasienInput = z
  .strictObject(
    {
      q: nama('q')
        .optional()
        .meta({ description: 'Name search: patients with a word of the name starting with this (e.g. "budi", "siti am")' }),
      noRm: z
        .string({ error: 'noRm must be text' })
        .regex(/^\d{1,8}$/, 'noRm must be up to 8 digits')
        .optional(),
      nik: z
        .string({ error: 'nik must be text' })
        .regex(/^\d{16}$/, 'nik must be 16 digits')
        .optional(),
      tanggalLahir: isoDate('tanggalLahir').optional(),
      status: choice('status', LIST_STATUS).default('active'),
      cursor: z.string({ error: 'cursor must be text' }).max(512, 'cursor is too long').optional(),
      limit: z
        .number({ error: 'limit must be a number' })
        .int('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(100, 'limit must be at most 100')
        .default(20),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : 'input must be an object') },
  )
  .optional()
  .default({ status: 'active', limit: 20 });
export type ListPasienInput = z.infer<typeof listPasienInput>;

export const pasienOutput = z.object({
  id: z.string(),
  noRm: z.string().meta({ description: 'Nomor rekam medis, unique per hospital, 8 digits' }),
  nik: z.string(),
  nama: z.string(),
  tempatLahir: z.string(),
  tanggalLahir: z.string(),
  jenisKelamin: z.enum(JENIS_KELAMIN),
  golonganDarah: z.enum(GOLONGAN_DARAH).nullable(),
  rhesus: z.enum(RHESUS).nullable(),
  agama: z.string().nullable(),
  statusPerkawinan: z.string().nullable(),
  pekerjaan: z.string().nullable(),
  namaIbu: z.string().nullable(),
  alamat: z.string(),
  rt: z.string().nullable(),
  rw: z.string().nullable(),
  kelurahan: z.string().nullable(),
  kecamatan: z.string().nullable(),
  kotaKabupaten: z.string(),
  provinsi: z.string(),
  kodePos: z.string().nullable(),
  telepon: z.string().nullable(),
  noBpjs: z.string().nullable(),
  status: z.enum(['active', 'archived']),
  archivedAt: z.string().nullable(),
  archiveReason: z.string().nullable(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Pasien = z.infer<typeof pasienOutput>;

export const pasienPage = z.object({
  items: z.array(pasienOutput),
  nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
});

/** API field -> column. The only column names that ever reach SQL text. */
export const COLUMNS: Record<keyof Pasien, string> = {
  id: 'id',
  noRm: 'no_rm',
  nik: 'nik',
  nama: 'nama',
  tempatLahir: 'tempat_lahir',
  tanggalLahir: 'tanggal_lahir',
  jenisKelamin: 'jenis_kelamin',
  golonganDarah: 'golongan_darah',
  rhesus: 'rhesus',
  agama: 'agama',
  statusPerkawinan: 'status_perkawinan',
  pekerjaan: 'pekerjaan',
  namaIbu: 'nama_ibu',
  alamat: 'alamat',
  rt: 'rt',
  rw: 'rw',
  kelurahan: 'kelurahan',
  kecamatan: 'kecamatan',
  kotaKabupaten: 'kota_kabupaten',
  provinsi: 'provinsi',
  kodePos: 'kode_pos',
  telepon: 'telepon',
  noBpjs: 'no_bpjs',
  status: 'status',
  archivedAt: 'archived_at',
  archiveReason: 'archive_reason',
  version: 'version',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

export const WRITABLE = Object.keys(pasienFields) as PasienFieldName[];
