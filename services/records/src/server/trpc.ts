// tRPC setup: the context every procedure sees, the guards (principal, scope, role), and the error
// formatter: the one place the tRPC surface builds the envelope (message, code, data.code,
// data.httpStatus, data.path) plus data.fieldErrors for bad input, and never leaks a stack or an
// internal message.
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError, z } from 'zod';
import { envelope } from '@simrs/contracts/envelope';
import type { Principal } from '@simrs/contracts/principal';
import { authorize, NEEDS_RELATIONSHIP, needToKnow, PROCEDURES, SCOPE_FOR } from '../access/index.ts';
import type { AccessInStatement, ClinicalSubject, ProcedureName } from '../access/index.ts';
import type { TenantDb } from '../db/index.ts';
import type { Cursors } from './cursor.ts';
import { FieldErrors, toTRPCError } from './errors.ts';

/** The caller as the audit trail records them. */
export interface Actor {
  userId: string;
  role: string;
  clientId?: string | undefined;
  requestId: string;
  traceId?: string | undefined;
  /** Set when only a break-the-glass grant allowed this access: the audit row is flagged. */
  breakGlass?: boolean;
  /** Why clinical content was reached: `treatment` or `break-the-glass` (unset for administration). */
  purpose?: string;
  /** The MCP tool an AI agent called, when the access came through the MCP server: named in the audit row. */
  tool?: string;
}

/**
 * What a guarded procedure reaches data with, built once per request for the principal's tenant:
 * the tenant-scoped database handle, the actor its audit rows name, and the list cursors. Each
 * domain's store is made from it (pasienStore, auditStore); nothing else reaches the database.
 */
export interface TenantScope {
  db: TenantDb;
  actor: Actor;
  cursors: Cursors;
}

export interface Context {
  /** Verified from the gateway's signed header; undefined for anonymous calls. */
  principal: Principal | undefined;
  requestId: string;
  /** Undefined for anonymous calls. */
  scope: TenantScope | undefined;
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

/** The message for input the schema refused; the REST surface says the same (see openapi.ts). */
export function invalidInputMessage(issues: readonly { path?: readonly PropertyKey[]; message: string }[]): string {
  const listed = issues
    .slice(0, 5)
    .map((i) => (i.path?.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  return `invalid input: ${listed}`;
}

/**
 * What an error tells the caller, on tRPC (the formatter below) and REST (rest.ts) alike: the message
 * (never an internal one for a 5xx) and, for bad input, the per-field messages.
 */
export function publicError(error: TRPCError, status: number): { message: string; fieldErrors?: Record<string, string[]> } {
  if (status >= 500) return { message: status === 503 ? 'service unavailable, try again shortly' : 'internal error' };
  const message = error.cause instanceof ZodError ? invalidInputMessage(error.cause.issues) : error.message;
  const fieldErrors = fieldErrorsOf(error.cause);
  return fieldErrors ? { message, fieldErrors } : { message };
}

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error }) {
      const { message, fieldErrors } = publicError(error, shape.data.httpStatus);
      const { error: body } = envelope(shape.data.code, message, shape.data.path ?? '');
      return fieldErrors ? { ...body, data: { ...body.data, fieldErrors } } : body;
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;
/** Calls procedures server-side with the same middleware (guards, input validation): the REST surface. */
export const createCallerFactory = t.createCallerFactory;

/**
 * The output schema of a procedure whose answer the service builds itself, field by field from typed
 * rows (pasien's toPasien): it still documents the answer (OpenAPI, the client's types), but tRPC does
 * not parse the answer again on every call, which only re-checked records' own work (20 patients of 29
 * fields each for a page). openapi.int.test.ts parses real answers with the schema itself, so an answer
 * that drifts from what is documented fails there.
 */
export function builtOutput<T extends z.ZodType>(schema: T): T {
  const documented = schema.clone();
  // tRPC's parser prefers parse (then parseAsync) on a zod schema; the clone's answer is its input.
  return Object.assign(documented, { parse: (value: unknown) => value, parseAsync: async (value: unknown) => value });
}

/** The error responses every guarded procedure can give, for its OpenAPI description. */
export const GUARDED_ERRORS = {
  400: 'Invalid input',
  401: 'No valid credential',
  403: 'Missing scope or role permission',
  503: 'Database unavailable',
};

/** A procedure's REST operation (its OpenAPI meta) with the guarded procedures' error responses. */
export function restMeta(
  method: 'GET' | 'POST' | 'PATCH',
  path: `/${string}`,
  tag: string,
  summary: string,
  errors: Record<number, string> = {},
): OpenApiMeta {
  return { openapi: { method, path, tags: [tag], summary, errorResponses: { ...GUARDED_ERRORS, ...errors } } };
}

/**
 * A procedure that needs a verified principal, the scope its kind requires (queries simrs:read,
 * mutations simrs:write, or a SMART `user/` scope allowing the same: @simrs/contracts/smart) and the
 * permission the matrix names for it. Handlers get `ctx.scope`, the caller's tenant scope, and
 * nothing else that reaches the database. Database and other unexpected errors become
 * 400/409/503/500 here, in one place. One middleware for both: tRPC copies a call's options at every
 * middleware it passes.
 */
export function guardedProcedure(name: ProcedureName) {
  // A need-to-know permission without its relationship check would leak clinical content.
  if (NEEDS_RELATIONSHIP[PROCEDURES[name].permission]) throw new Error(`${name} reaches clinical content: build it with clinicalProcedure`);
  return guarded(name);
}

/**
 * A guarded procedure that reaches a patient's clinical content (its permission is marked in
 * NEEDS_RELATIONSHIP): after the guard and the input, the need-to-know check for the subject the input
 * names. The audit rows of the call carry the purpose, and the break-the-glass flag when only a grant
 * allowed it.
 */
export function clinicalProcedure<T extends z.ZodType>(name: ProcedureName, input: T, subjectOf: (input: z.output<T>) => ClinicalSubject) {
  const { permission } = PROCEDURES[name];
  return guarded(name)
    .input(input)
    .use(async ({ ctx, input: parsed, next }) => {
      const access = await needToKnow(ctx.scope.db, ctx.scope.actor.userId, permission, subjectOf(parsed as z.output<T>));
      const purpose = access?.breakGlass ? 'break-the-glass' : 'treatment';
      const actor: Actor = { ...ctx.scope.actor, breakGlass: access?.breakGlass === true, purpose };
      return next({ ctx: { scope: { ...ctx.scope, actor } } });
    });
}

/**
 * A clinical write whose handler makes the need-to-know check inside its one write statement (the
 * klinis store's recordInVisit), so that check, write and audit row are one round trip. The handler
 * gets `ctx.access`, which that store function requires; the statement's audit row carries the purpose
 * and the break-the-glass flag the check found.
 */
export function clinicalWriteProcedure<T extends z.ZodType>(name: ProcedureName, input: T) {
  const { permission } = PROCEDURES[name];
  if (!NEEDS_RELATIONSHIP[permission]) throw new Error(`${name} reaches no clinical content: build it with guardedProcedure`);
  const access: AccessInStatement = { permission, inStatement: true };
  return guarded(name)
    .input(input)
    .use(({ ctx, next }) => next({ ctx: { scope: ctx.scope, access } }));
}

function guarded(name: ProcedureName) {
  const { kind, permission } = PROCEDURES[name];
  return t.procedure.use(async ({ ctx, type, next }) => {
    if (!ctx.principal || !ctx.scope) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in first: no valid credential' });
    if (type !== kind) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: `procedure ${name} is declared as ${kind}` });
    // The procedures reach every patient of the tenant: a launch-patient-only SMART scope is not enough.
    const verdict = authorize(ctx.principal, permission);
    if ('refused' in verdict) throw new TRPCError({ code: 'FORBIDDEN', message: verdict.refused });
    if (verdict.reach !== 'all') throw new TRPCError({ code: 'FORBIDDEN', message: `this credential lacks the ${SCOPE_FOR[kind]} scope` });
    const result = await next({ ctx: { principal: ctx.principal, scope: ctx.scope } });
    if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR' && result.error.cause) throw toTRPCError(result.error.cause);
    return result;
  });
}
