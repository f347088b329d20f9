// The audit trail as the API sees it: the actions recorded, the listing's filters (strict, one message
// per field) and the entry returned.
import { z } from 'zod';
import { AUDIT_ACTIONS } from '@simrs/contracts/audit';
import type { AuditAction } from '@simrs/contracts/audit';

export type { AuditAction };

export const auditListInput = z
  .strictObject(
    {
      action: z.enum(AUDIT_ACTIONS, { error: `action must be one of ${AUDIT_ACTIONS.join(', ')}` }).optional(),
      actorUserId: z
        .string({ error: 'actorUserId must be text' })
        .min(1)
        .max(200)
        .regex(/^[\w.@:-]+$/, 'actorUserId contains characters that are not allowed')
        .optional(),
      breakGlass: z.boolean({ error: 'breakGlass must be true or false' }).optional(),
      agent: z
        .boolean({ error: 'agent must be true or false' })
        .optional()
        .meta({ description: 'true: only what AI agents did through the MCP server (details.tool names the tool); false: the rest' }),
      pasienId: z.string({ error: 'pasienId must be a patient id (UUID)' }).uuid('pasienId must be a patient id (UUID)').optional(),
      from: z.iso.datetime({ offset: true, error: 'from must be an ISO date-time, e.g. 2026-01-31T00:00:00Z' }).optional(),
      to: z.iso.datetime({ offset: true, error: 'to must be an ISO date-time, e.g. 2026-01-31T00:00:00Z' }).optional(),
      cursor: z.string({ error: 'cursor must be text' }).max(512, 'cursor is too long').optional(),
      limit: z
        .number({ error: 'limit must be a number' })
        .int('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(200, 'limit must be at most 200')
        .default(50),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : 'input must be an object') },
  )
  .optional()
  .default({ limit: 50 });
export type AuditListInput = z.infer<typeof auditListInput>;

export const auditEntry = z.object({
  id: z.number().int(),
  occurredAt: z.string(),
  actorUserId: z.string(),
  actorRole: z.string(),
  clientId: z.string().nullable(),
  action: z.string(),
  pasienIds: z.array(z.string()),
  requestId: z.string().nullable(),
  traceId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  breakGlass: z.boolean(),
  purpose: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntry>;
