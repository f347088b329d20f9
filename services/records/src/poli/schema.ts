// Clinics (poli), their clinicians and the hospital's access settings as the API sees them. Inputs
// are strict objects (an unknown field is a 400 naming it), one message per field, no coercion.
import { z } from 'zod';
import { text } from '../pasien/index.ts';

/** The strict objects' error: an unknown field is named, anything but an object refused. */
export const strict = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys' ? `unknown field(s): ${(issue.keys ?? []).join(', ')}` : 'input must be an object',
};

export const id = (field: string, what: string) =>
  z.string({ error: `${field} must be ${what} id (UUID)` }).uuid(`${field} must be ${what} id (UUID)`);

/** A user id as identity issues it and the principal carries it. */
export const userId = (field: string) =>
  z
    .string({ error: `${field} must be a user id` })
    .min(1, `${field} must not be empty`)
    .max(200, `${field} must be at most 200 characters`)
    .regex(/^[\w.@:-]+$/, `${field} contains characters that are not allowed`);

const kode = z
  .string({ error: 'kode must be text' })
  .regex(/^[A-Z0-9-]{2,12}$/, 'kode must be 2 to 12 capital letters, digits or dashes (e.g. UMUM, ANAK, PD)');

export const poliOutput = z.object({
  id: z.string(),
  kode: z.string(),
  nama: z.string(),
  active: z.boolean(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Poli = z.infer<typeof poliOutput>;

export const listPoliInput = z
  .strictObject({ includeInactive: z.boolean({ error: 'includeInactive must be true or false' }).default(false) }, strict)
  .optional()
  .default({ includeInactive: false });

export const createPoliInput = z.strictObject({ kode, nama: text('nama', 100) }, strict);
export type CreatePoliInput = z.infer<typeof createPoliInput>;

export const updatePoliInput = z.strictObject(
  {
    id: id('id', 'a clinic'),
    expectedVersion: z.number({ error: 'expectedVersion must be a number' }).int().positive().optional(),
    nama: text('nama', 100).optional(),
    active: z.boolean({ error: 'active must be true or false' }).optional(),
  },
  strict,
);
export type UpdatePoliInput = z.infer<typeof updatePoliInput>;

export const assignInput = z.strictObject({ poliId: id('poliId', 'a clinic'), userId: userId('userId') }, strict);
export const staffInput = z
  .strictObject({ poliId: id('poliId', 'a clinic').optional(), userId: userId('userId').optional() }, strict)
  .optional()
  .default({});

export const staffOutput = z.object({ poliId: z.string(), userId: z.string(), assignedAt: z.string(), assignedBy: z.string() });
export type Staff = z.infer<typeof staffOutput>;

export const settingsOutput = z.object({
  relationshipDays: z.number().int(),
  btgMinutes: z.number().int(),
  organizationId: z.string(),
});
export type Settings = z.infer<typeof settingsOutput>;

export const updateSettingsInput = z.strictObject(
  {
    relationshipDays: z
      .number({ error: 'relationshipDays must be a number' })
      .int('relationshipDays must be a whole number')
      .min(0, 'relationshipDays must be at least 0')
      .max(365, 'relationshipDays must be at most 365')
      .optional(),
    btgMinutes: z
      .number({ error: 'btgMinutes must be a number' })
      .int('btgMinutes must be a whole number')
      .min(5, 'btgMinutes must be at least 5')
      .max(720, 'btgMinutes must be at most 720')
      .optional(),
    organizationId: z
      .string({ error: 'organizationId must be text' })
      .regex(/^[A-Za-z0-9-]{0,64}$/, "organizationId must be the SATUSEHAT organization id (letters, digits, dashes) or ''")
      .optional(),
  },
  strict,
);
export type UpdateSettingsInput = z.infer<typeof updateSettingsInput>;
