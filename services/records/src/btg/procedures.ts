// The break-the-glass procedures (`btg.*`), mounted by the app router (server/router.ts).
import { z } from 'zod';
import { builtOutput, guardedProcedure, restMeta, router } from '../server/index.ts';
import { grantOutput, listInput, openInput } from './schema.ts';
import { btgStore } from './store.ts';

export const btgRouter = router({
  open: guardedProcedure('btg.open')
    .meta(
      restMeta('POST', '/btg', 'btg', "Break the glass: open a patient's clinical record for a bounded time, with a written reason", {
        404: 'Patient not found',
      }),
    )
    .input(openInput)
    .output(builtOutput(grantOutput))
    .mutation(({ ctx, input }) => btgStore(ctx.scope).open(input)),

  list: guardedProcedure('btg.list')
    .meta(restMeta('GET', '/btg', 'btg', 'Every break-the-glass access, newest first (auditors)'))
    .input(listInput)
    .output(builtOutput(z.array(grantOutput)))
    .query(({ ctx, input }) => btgStore(ctx.scope).list(input)),
});
