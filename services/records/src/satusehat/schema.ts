// The SATUSEHAT procedures' inputs and outputs. The client secret is input only: no output carries it.
import { z } from 'zod';
import { id, strict, userId } from '../poli/index.ts';

export const OUTBOX_STATES = ['queued', 'sent', 'failed', 'incomplete'] as const;

export const connectionInput = z.strictObject(
  {
    environment: z.enum(['staging', 'production'], { error: 'environment must be staging or production' }),
    clientId: z.string({ error: 'clientId must be a string' }).trim().min(1, 'clientId is required').max(200, 'clientId is too long'),
    clientSecret: z
      .string({ error: 'clientSecret must be a string' })
      .min(1, 'clientSecret is required')
      .max(500, 'clientSecret is too long'),
  },
  strict,
);

export const connectionOutput = z.object({
  configured: z.boolean(),
  environment: z.enum(['staging', 'production']).nullable(),
  clientId: z.string().nullable(),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable(),
});

export const testOutput = z.object({ ok: z.boolean(), message: z.string() });

export const practitionerInput = z.strictObject(
  { userId: userId('userId'), nik: z.string({ error: 'nik must be a string' }).regex(/^[0-9]{16}$/, 'nik must be 16 digits') },
  strict,
);

export const listInput = z.strictObject(
  {
    state: z.enum(OUTBOX_STATES, { error: 'state must be queued, sent, failed or incomplete' }).optional(),
    limit: z.number({ error: 'limit must be a number' }).int('limit must be a whole number').min(1).max(200).default(50),
  },
  strict,
);

export const visitInput = z.strictObject({ kunjunganId: id('kunjunganId', 'a visit') }, strict);

export const outboxOutput = z.object({
  id: z.number().int(),
  kunjunganId: z.string(),
  noKunjungan: z.string(),
  tanggal: z.string(),
  reason: z.string().meta({ description: 'finished, amended (a change after sending) or resend' }),
  state: z.enum(OUTBOX_STATES),
  attempts: z.number().int(),
  lastError: z.string().nullable().meta({ description: "The platform's words (failed) or what is missing (incomplete)" }),
  nextAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
});
