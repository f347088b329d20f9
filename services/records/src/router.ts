import { publicProcedure, router } from './trpc.ts';

export const appRouter = router({
  /** Public liveness of the API surface as the seed defines it: `{"result":{"data":null}}`. */
  healthCheck: publicProcedure.query(() => null),
});

export type AppRouter = typeof appRouter;
