// The audit procedures (`audit.*`), mounted by the app router (server/router.ts).
import { z } from 'zod';
import { GUARDED_ERRORS, guardedProcedure, router } from '../server/index.ts';
import { auditEntry, auditListInput } from './schema.ts';
import { auditStore } from './store.ts';

export const auditRouter = router({
  list: guardedProcedure('audit.list')
    .meta({
      openapi: {
        method: 'GET',
        path: '/audit',
        tags: ['audit'],
        summary: 'Read the audit trail (newest first)',
        errorResponses: GUARDED_ERRORS,
      },
    })
    .input(auditListInput)
    .output(z.object({ items: z.array(auditEntry), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => auditStore(ctx.scope).listAudit(input)),
});
