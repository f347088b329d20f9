// `kode.search`: the diagnosis picker's lookup of active ICD-10 codes by code or by words of their
// English or Indonesian name. Codes are the platform's reference data, not a patient's: no audit row.
import { z } from 'zod';
import { builtOutput, guardedProcedure, restMeta, router } from '../server/index.ts';
import { strict } from '../poli/index.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, searchCodes } from './search.ts';

const searchInput = z.strictObject(
  {
    q: z.string({ error: 'q must be text' }).trim().min(1, 'q must not be empty').max(100, 'q must be at most 100 characters'),
    limit: z
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}`)
      .default(DEFAULT_LIMIT),
  },
  strict,
);

const codeOutput = z.object({ code: z.string(), displayEn: z.string(), displayId: z.string() });

export const kodeRouter = router({
  search: guardedProcedure('kode.search')
    .meta(restMeta('GET', '/kode/icd-10', 'kode', 'Find ICD-10 codes by code (J06, j069) or by words of the English or Indonesian name'))
    .input(searchInput)
    .output(builtOutput(z.array(codeOutput)))
    .query(({ ctx, input }) => searchCodes(ctx.scope.db, input.q, { limit: input.limit })),
});
