// What the domain folders build on: the tRPC builders and guards, the tenant scope their stores are
// made from, the error for bad input, and the logger. The HTTP server and the app router (server.ts,
// router.ts) compose those domains, so they are not exported here (that would close an import
// circle); main.ts imports server.ts directly.
export { BodyTooLarge, readBody } from './body.ts';
export { badInput, FieldErrors, toTRPCError } from './errors.ts';
export { sendError } from './http-error.ts';
export { log } from './log.ts';
export {
  builtOutput,
  clinicalProcedure,
  clinicalWriteProcedure,
  GUARDED_ERRORS,
  guardedProcedure,
  publicError,
  restMeta,
  router,
} from './trpc.ts';
export type { Actor, Context, TenantScope } from './trpc.ts';
