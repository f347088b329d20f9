// Break-the-glass as the API sees it: opening a grant (a written reason is required) and the
// auditor's listing of every grant.
import { z } from 'zod';
import { text } from '../pasien/index.ts';
import { id, strict, userId } from '../poli/index.ts';

export const openInput = z.strictObject(
  {
    pasienId: id('pasienId', 'a patient'),
    reason: text('reason', 500).refine((v) => v.length >= 10, 'reason must say why, in at least 10 characters'),
  },
  strict,
);
export type OpenInput = z.infer<typeof openInput>;

export const listInput = z
  .strictObject(
    {
      userId: userId('userId').optional(),
      pasienId: id('pasienId', 'a patient').optional(),
      limit: z
        .number({ error: 'limit must be a number' })
        .int('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(200, 'limit must be at most 200')
        .default(50),
    },
    strict,
  )
  .optional()
  .default({ limit: 50 });
export type ListInput = z.infer<typeof listInput>;

export const grantOutput = z.object({
  id: z.string(),
  userId: z.string(),
  userRole: z.string(),
  pasienId: z.string(),
  reason: z.string(),
  openedAt: z.string(),
  expiresAt: z.string(),
  active: z.boolean(),
});
export type Grant = z.infer<typeof grantOutput>;
