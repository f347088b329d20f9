// Outpatient visits (kunjungan) as the API sees them: inputs (strict objects, one message per field, no
// coercion) and the visit returned, with its status history (FHIR Encounter.statusHistory).
import { z } from 'zod';
import { entryOutput } from '../klinis/index.ts';
import { isoDate, text } from '../pasien/index.ts';
import { id, strict } from '../poli/index.ts';

/** FHIR Encounter.status values, as the record keeps them. */
export const STATUS = ['planned', 'arrived', 'in-progress', 'finished', 'cancelled'] as const;
export type Status = (typeof STATUS)[number];

const expectedVersion = z.number({ error: 'expectedVersion must be a number' }).int().positive().optional();

export const registerInput = z.strictObject({ pasienId: id('pasienId', 'a patient'), poliId: id('poliId', 'a clinic') }, strict);
export type RegisterInput = z.infer<typeof registerInput>;

export const getInput = z.strictObject({ id: id('id', 'a visit') }, strict);
export const transitionInput = z.strictObject({ id: id('id', 'a visit'), expectedVersion }, strict);
export type TransitionInput = z.infer<typeof transitionInput>;
export const cancelInput = z.strictObject({ id: id('id', 'a visit'), expectedVersion, reason: text('reason', 200) }, strict);
export type CancelInput = z.infer<typeof cancelInput>;

export const listInput = z
  .strictObject(
    {
      poliId: id('poliId', 'a clinic').optional(),
      pasienId: id('pasienId', 'a patient').optional(),
      tanggal: isoDate('tanggal')
        .optional()
        .meta({ description: "The day (default today in the hospital's time zone); ignored with pasienId alone" }),
      status: z.enum(STATUS, { error: `status must be one of ${STATUS.join(', ')}` }).optional(),
      limit: z
        .number({ error: 'limit must be a number' })
        .int('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(200, 'limit must be at most 200')
        .default(100),
    },
    strict,
  )
  .optional()
  .default({ limit: 100 });
export type ListInput = z.infer<typeof listInput>;

export const riwayatInput = z.strictObject(
  {
    pasienId: id('pasienId', 'a patient'),
    limit: z
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(50, 'limit must be at most 50')
      .default(20)
      .meta({ description: 'Visits per page (1..50, 20)' }),
    cursor: z
      .string({ error: 'cursor must be text' })
      .max(512, 'cursor is too long')
      .optional()
      .meta({ description: "The previous page's nextCursor" }),
  },
  strict,
);
export type RiwayatInput = z.infer<typeof riwayatInput>;

export const statusEntry = z.object({
  status: z.enum(STATUS),
  at: z.string(),
  actorUserId: z.string(),
  actorRole: z.string(),
  reason: z.string().nullable(),
});

export const kunjunganOutput = z.object({
  id: z.string(),
  noKunjungan: z.string().meta({ description: 'RJ-YYYYMMDD-NNNN: the day and a number per hospital per day' }),
  pasienId: z.string(),
  pasienNama: z.string(),
  noRm: z.string(),
  poliId: z.string(),
  poliNama: z.string(),
  tanggal: z.string(),
  noAntrean: z.number().int().meta({ description: 'Queue number, per clinic per day' }),
  status: z.enum(STATUS),
  cancelReason: z.string().nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  statusHistory: z.array(statusEntry),
});
export type Kunjungan = z.infer<typeof kunjunganOutput>;

/**
 * One visit of the timeline: the visit with what was recorded in it. Entered-in-error entries are
 * included, marked (`enteredInError`); a kind the caller may not read comes back empty.
 */
export const timelineVisit = kunjunganOutput.extend({
  vital: z.array(entryOutput).meta({ description: 'Vital signs, latest measurement first' }),
  diagnosis: z.array(entryOutput).meta({ description: 'Diagnoses in force first, the primary before the secondary ones' }),
  catatan: entryOutput
    .nullable()
    .meta({ description: "The visit's note in force, else the latest one marked entered in error; null when none was written" }),
});
export const timelinePage = z.object({
  items: z.array(timelineVisit).meta({ description: 'Visits, newest first' }),
  nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
});
export type TimelineVisit = z.infer<typeof timelineVisit>;
export type TimelinePage = z.infer<typeof timelinePage>;
