// tRPC setup: the context every procedure sees, the guards (principal, scope, role), and the error
// formatter that keeps the seed's envelope (message, code, data.code, data.httpStatus, data.path)
// plus data.fieldErrors for bad input, and never leaks a stack or an internal message.
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError, z } from 'zod';
import type { Principal } from '@simrs/contracts/principal';
import { FieldErrors, toTRPCError } from './errors.ts';
import { PROCEDURES, SCOPE_FOR, roleMay } from './permissions.ts';
import type { ProcedureName } from './permissions.ts';
import type { RecordsStore } from './store.ts';

export interface Context {
  /** Verified from the gateway's signed header; undefined for anonymous calls. */
  principal: Principal | undefined;
  requestId: string;
  /** The tenant-scoped data access object, built once per request for the principal's tenant. */
  store: RecordsStore | undefined;
}

function fieldErrorsOf(cause: unknown): Record<string, string[]> | undefined {
  if (cause instanceof ZodError) {
    const flat = z.flattenError(cause);
    const out: Record<string, string[]> = { ...(flat.fieldErrors as Record<string, string[]>) };
    if (flat.formErrors.length > 0) out._input = flat.formErrors;
    return out;
  }
  if (cause instanceof FieldErrors) return cause.fieldErrors;
  return undefined;
}

function messageOf(cause: ZodError): string {
  return cause.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

const PUBLIC_5XX: Record<number, string> = { 503: 'service unavailable, try again shortly' };

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error }) {
      const status = shape.data.httpStatus;
      const fieldErrors = status < 500 ? fieldErrorsOf(error.cause) : undefined;
      const message =
        status >= 500 ? (PUBLIC_5XX[status] ?? 'internal error') : error.cause instanceof ZodError ? `invalid input: ${messageOf(error.cause)}` : shape.message;
      return {
        message,
        code: shape.code,
        data: {
          code: shape.data.code,
          httpStatus: status,
          path: shape.data.path ?? '',
          ...(fieldErrors ? { fieldErrors } : {}),
        },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;

/** Database and other unexpected errors become 400/409/503/500 in one place. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR' && result.error.cause) throw toTRPCError(result.error.cause);
  return result;
});

/**
 * A procedure that needs a verified principal, the scope its kind requires (queries simrs:read,
 * mutations simrs:write) and the permission the matrix names for it. Handlers get `ctx.store`, the
 * caller's tenant-scoped data access object, and nothing else that reaches the database.
 */
export function guardedProcedure(name: ProcedureName) {
  const { kind, permission } = PROCEDURES[name];
  return t.procedure.use(mapErrors).use(({ ctx, type, next }) => {
    if (!ctx.principal || !ctx.store) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in first: no valid credential' });
    if (type !== kind) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: `procedure ${name} is declared as ${kind}` });
    const scope = SCOPE_FOR[kind];
    if (!ctx.principal.scopes.includes(scope)) throw new TRPCError({ code: 'FORBIDDEN', message: `this credential lacks the ${scope} scope` });
    if (!roleMay(ctx.principal.role, permission)) {
      throw new TRPCError({ code: 'FORBIDDEN', message: `role ${ctx.principal.role} may not ${permission}` });
    }
    return next({ ctx: { principal: ctx.principal, store: ctx.store } });
  });
}
