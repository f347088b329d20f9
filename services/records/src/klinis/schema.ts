// Clinical entries as the API sees them: the inputs of each kind (strict objects, one message per
// field, no coercion) and the entry returned, whatever its kind, with its version and who wrote it.
import { z } from 'zod';
import { CLINICAL_KINDS } from '../access/index.ts';
import type { ClinicalKind } from '../access/index.ts';
import { text } from '../pasien/index.ts';
import { id, strict } from '../poli/index.ts';

/** What a kind's checks make of its input: the columns of one entry. */
export interface Prepared {
  kode: string | null;
  kategori: string;
  peran?: 'primary' | 'secondary';
  isi: Record<string, unknown>;
  /** The flag at the age the checks were given (none given: an adult's). */
  flag?: string;
  /**
   * The flag by the patient's age where it depends on it, youngest first: [below this many years,
   * flag]; from the last band's age on, `flag`. The write picks the patient's band in its statement.
   */
  byAge?: [number, string][];
}

const expectedVersion = z.number({ error: 'expectedVersion must be a number' }).int().positive();
export const reason = text('reason', 500).refine((v) => v.length >= 5, 'reason must say why, in at least 5 characters');
const optionalReason = reason
  .optional()
  .meta({ description: 'Needed when the visit is already finished: an entry added afterwards is an amendment' });
/** An instant as `waktu` is written: an ISO 8601 date-time with its offset. */
export const instant = z
  .string({ error: 'waktu must be a date-time' })
  .datetime({ offset: true, message: 'waktu must be an ISO 8601 date-time with its offset, e.g. 2026-05-01T09:30:00+07:00' });
const waktu = instant
  .refine((v) => Date.parse(v) <= Date.now() + 5 * 60_000, 'waktu must not be in the future')
  .optional()
  .meta({
    description:
      "When it was measured (default now): from the start of the visit's day (WIB); in a finished visit, before the end of that day or by the visit's end if later",
  });
const number = (field: string) => z.number({ error: `${field} must be a number` }).finite();

export const measurement = z.strictObject(
  {
    key: z.string({ error: 'key must be the name of a vital sign' }).max(40),
    value: number('value'),
    unit: z.string({ error: 'unit must be a UCUM unit' }).max(20),
  },
  strict,
);

export const vitalRecordInput = z.strictObject(
  { kunjunganId: id('kunjunganId', 'a visit'), waktu, measurements: z.array(measurement).max(10), reason: optionalReason },
  strict,
);
export const vitalAmendInput = z.strictObject(
  { id: id('id', 'an entry'), expectedVersion, reason, measurements: z.array(measurement).min(1).max(2) },
  strict,
);

export const DIAGNOSIS_STATUS = ['active', 'recurrence', 'relapse', 'inactive', 'remission', 'resolved'] as const;
const diagnosisFields = {
  code: z
    .string({ error: 'code must be an ICD-10 code' })
    .trim()
    .toUpperCase()
    .regex(/^[A-Z][0-9]{2}(\.[0-9A-Z]{1,4})?$/, 'code must be an ICD-10 code such as J06.9'),
  rank: z.enum(['primary', 'secondary'], { error: 'rank must be primary or secondary' }),
  clinicalStatus: z.enum(DIAGNOSIS_STATUS, { error: `clinicalStatus must be one of ${DIAGNOSIS_STATUS.join(', ')}` }).default('active'),
  note: text('note', 1000).optional(),
};
export const diagnosisRecordInput = z.strictObject(
  { kunjunganId: id('kunjunganId', 'a visit'), ...diagnosisFields, reason: optionalReason },
  strict,
);
export const diagnosisAmendInput = z.strictObject({ id: id('id', 'an entry'), expectedVersion, reason, ...diagnosisFields }, strict);

export const ALLERGY_CATEGORY = ['food', 'medication', 'environment', 'biologic'] as const;
export const ALLERGY_CRITICALITY = ['low', 'high', 'unable-to-assess'] as const;
export const ALLERGY_STATUS = ['active', 'inactive', 'resolved'] as const;
export const ALLERGY_VERIFICATION = ['unconfirmed', 'confirmed', 'refuted'] as const;
const allergyFields = {
  noneKnown: z
    .boolean({ error: 'noneKnown must be true or false' })
    .default(false)
    .meta({ description: 'True records that the patient was asked and has no known allergy (then give nothing else)' }),
  substance: text('substance', 200).optional().meta({ description: 'What the patient reacts to, as the patient or the chart names it' }),
  category: z.enum(ALLERGY_CATEGORY, { error: `category must be one of ${ALLERGY_CATEGORY.join(', ')}` }).optional(),
  criticality: z.enum(ALLERGY_CRITICALITY, { error: `criticality must be one of ${ALLERGY_CRITICALITY.join(', ')}` }).optional(),
  reaction: text('reaction', 500).optional(),
  clinicalStatus: z.enum(ALLERGY_STATUS, { error: `clinicalStatus must be one of ${ALLERGY_STATUS.join(', ')}` }).default('active'),
  verificationStatus: z
    .enum(ALLERGY_VERIFICATION, { error: `verificationStatus must be one of ${ALLERGY_VERIFICATION.join(', ')}` })
    .default('confirmed'),
};
export const alergiRecordInput = z.strictObject(
  { pasienId: id('pasienId', 'a patient'), kunjunganId: id('kunjunganId', 'a visit').optional(), ...allergyFields },
  strict,
);
export const alergiAmendInput = z.strictObject({ id: id('id', 'an entry'), expectedVersion, reason, ...allergyFields }, strict);

const soap = (field: string) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .max(4000, `${field} must be at most 4000 characters`)
    .default('');
const soapFields = { subjective: soap('subjective'), objective: soap('objective'), assessment: soap('assessment'), plan: soap('plan') };
export const catatanRecordInput = z.strictObject(
  { kunjunganId: id('kunjunganId', 'a visit'), ...soapFields, reason: optionalReason },
  strict,
);
export const catatanAmendInput = z.strictObject({ id: id('id', 'an entry'), expectedVersion, reason, ...soapFields }, strict);

export const retractInput = z.strictObject({ id: id('id', 'an entry'), expectedVersion, reason }, strict);
export const historyInput = z.strictObject({ id: id('id', 'an entry') }, strict);
export const listInput = z
  .strictObject(
    {
      pasienId: id('pasienId', 'a patient').optional(),
      kunjunganId: id('kunjunganId', 'a visit').optional(),
      includeEnteredInError: z.boolean({ error: 'includeEnteredInError must be true or false' }).default(false),
      limit: z
        .number({ error: 'limit must be a number' })
        .int('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(200, 'limit must be at most 200')
        .default(100),
    },
    strict,
  )
  .refine((v) => (v.pasienId === undefined) !== (v.kunjunganId === undefined), {
    message: 'give either pasienId or kunjunganId',
    path: ['pasienId'],
  });

export type VitalRecordInput = z.infer<typeof vitalRecordInput>;
export type DiagnosisRecordInput = z.infer<typeof diagnosisRecordInput>;
export type AlergiRecordInput = z.infer<typeof alergiRecordInput>;
export type CatatanRecordInput = z.infer<typeof catatanRecordInput>;
export type ListInput = z.infer<typeof listInput>;

export const entryOutput = z.object({
  id: z.string(),
  jenis: z.enum(CLINICAL_KINDS),
  pasienId: z.string(),
  kunjunganId: z.string().nullable(),
  kode: z.string().nullable().meta({ description: 'LOINC (vital signs), ICD-10 (diagnoses), SNOMED CT 716186003 (no known allergy)' }),
  kategori: z.string(),
  peran: z.enum(['primary', 'secondary']).nullable(),
  isi: z.record(z.string(), z.unknown()).meta({ description: 'The content, in the shape of its kind' }),
  flag: z.enum(['N', 'L', 'H', 'LL', 'HH']).nullable().meta({ description: 'Vital signs: normal, low, high, critically low or high' }),
  waktu: z.string(),
  enteredInError: z.boolean(),
  reason: z.string().nullable().meta({ description: 'Why the latest version was written (corrections and entered-in-error marks)' }),
  version: z.number().int(),
  createdAt: z.string(),
  createdBy: z.string(),
  createdRole: z.string(),
  updatedAt: z.string(),
  updatedBy: z.string(),
  updatedRole: z.string(),
});
export type Entry = z.infer<typeof entryOutput> & { jenis: ClinicalKind };
