// SHIM: a tRPC procedure called as tRPC's `callTRPCProcedure` calls it (its middlewares in order: guard,
// input parser, output, resolver; the same options at each step; the context merged when a middleware
// passes one; the input and raw input passed on; a throw turned into a failed result), with the
// options copied by native object spreads.
//
// Replaces: `callTRPCProcedure` (@trpc/server) on the single-call path (single-call.ts). tRPC 11's
// build down-levels object spread to a helper (`_objectSpread2`: Object.keys, a symbol filter and a
// defineProperty per key, and getOwnPropertyDescriptors/defineProperties for the rest) and its
// `callRecursive` copies the call's options through it twice per middleware, allocating garbage on
// every step.
// Below the public API (tRPC 11.25.2): a procedure's `_def` (`middlewares`, `meta`,
// `experimental_caller`), the middleware result protocol (`{ ok, data }` or `{ ok: false, error }`
// with `middlewareMarker`) and the router's `_def.procedures` (through trpc-router.ts).
// Gain measured: records CPU per `pasien.list` (records straight, 50 connections, compiled; the stacks
// loaded at the same time, each by its own wrk, 40 rounds of 5 s, 2026-11-26, load average 9-18 on the
// shared 2-core machine): with callTRPCProcedure 3.574 ms (median, range 2.500-10.667), this way 3.209 ms
// (range 2.114-6.491); paired per round 0.829 of it (median; interquartile 0.678-1.016), about 17 %.
// Bisected, the change to callTRPCProcedure alone had cost +10 % (paired median, 40 rounds). The calls
// alone, `pasien.list`'s four middlewares in a loop: 43 µs against 10 µs a call.
// Measured with the stacks loaded at once, as `AB_MODE=records AB_AT_ONCE=1 AB_BASE_DIR=<tree> npx node
// bench/ab.ts` does (in turns, on a machine this loaded, one turn and the next differed by up to 2x).
// Upstream: none found (no tRPC issue or PR about the cost of its per-middleware option copies or its
// spread helper; the package's build target decides the helper).
// Upgrade test: procedure-call.upgrade.test.ts (this call against callTRPCProcedure, result by result,
// for every way a middleware can pass or fail); server/single-call.test.ts (the adapter's answers,
// byte for byte).
import { callTRPCProcedure, getTRPCErrorFromUnknown, TRPCError } from '@trpc/server';
import type { AnyTRPCRouter } from '@trpc/server';
import { middlewareMarker } from '@trpc/server/unstable-core-do-not-import';
import { procedureAt } from './trpc-router.ts';

type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };
type Middleware = (opts: Record<string, unknown>) => Promise<MiddlewareResult>;
interface ProcedureDef {
  middlewares: Middleware[];
  meta: unknown;
  experimental_caller?: boolean;
}

/** The options callTRPCProcedure takes, but the router (given apart). */
export interface CallOptions {
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  ctx: unknown;
  getRawInput: () => Promise<unknown>;
  signal: AbortSignal | undefined;
  batchIndex: number;
}

/** tRPC's callRecursive (@trpc/server 11.25.2), with native spreads. */
async function callMiddlewares(def: ProcedureDef, index: number, opts: Record<string, unknown>): Promise<MiddlewareResult> {
  const middleware = def.middlewares[index]!;
  const next = (nextOpts?: { ctx?: object; input?: unknown; getRawInput?: unknown }) =>
    callMiddlewares(def, index + 1, {
      ...opts,
      ctx: nextOpts?.ctx ? { ...(opts.ctx as object), ...nextOpts.ctx } : opts.ctx,
      input: nextOpts && 'input' in nextOpts ? nextOpts.input : opts.input,
      getRawInput: nextOpts?.getRawInput ?? opts.getRawInput,
    });
  try {
    return await middleware({ ...opts, meta: def.meta, input: opts.input, next });
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker } as MiddlewareResult;
  }
}

/**
 * The procedure's answer, or its error thrown, as `callTRPCProcedure({ router, ...opts })` gives them
 * (NOT_FOUND for no procedure of that type at the path).
 */
export async function callProcedure(router: AnyTRPCRouter, opts: CallOptions): Promise<unknown> {
  const proc = procedureAt(router, opts.path);
  const def = proc?._def as unknown as (ProcedureDef & { type: string }) | undefined;
  // A procedure with its own caller, or one tRPC would still have to load, is called by tRPC itself.
  if (!def || def.experimental_caller || def.type !== opts.type) return callTRPCProcedure({ router, ...opts });
  const result = await callMiddlewares(def, 0, opts as unknown as Record<string, unknown>);
  if (!result)
    throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares - did you forget to `return next()`?' });
  if (!result.ok) throw result.error;
  return result.data;
}
