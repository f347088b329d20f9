// tRPC's most common call, one query sent as GET (`/trpc/pasien.list?input=...`), answered straight on
// Node's request and response. tRPC's adapter turns every request into a WHATWG Request (URL, Headers,
// AbortController) and every answer into a Response read back through a WritableStream; for a
// `pasien.list` that round trip cost records more CPU than the query itself. Here the procedure runs
// through tRPC's own caller (the same middleware: guards, input validation, error mapping) and the
// answer is built with tRPC's own error shape, status and serialisation, so it is the answer the
// adapter gives, byte for byte (single-query.test.ts compares the two). Anything else (batches,
// mutations, HEAD, streaming, an encoded or unknown path, a body type) is left to the adapter.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import type { AnyTRPCRouter } from '@trpc/server';
import {
  getErrorShape,
  getHTTPStatusCode,
  getTRPCErrorFromUnknown,
  middlewareMarker,
  transformTRPCResponse,
} from '@trpc/server/unstable-core-do-not-import';
import type { AnyProcedure } from '@trpc/server/unstable-core-do-not-import';

type Middleware = (opts: Record<string, unknown>) => Promise<MiddlewareResult>;
type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };
interface ProcedureDef {
  middlewares: Middleware[];
  meta: unknown;
  experimental_caller?: boolean;
}

/**
 * Runs a procedure's middleware chain (guard, input parser, output, resolver) as tRPC's own caller
 * does (@trpc/server's callRecursive: the same options at each step, the context merged when a
 * middleware passes one, the input and raw input passed on, a throw turned into a failed result),
 * with native object spreads. tRPC's build copies the options through a down-levelled spread helper
 * (defineProperty key by key) twice per middleware: for `pasien.list` its chain took 13.5 µs a call
 * against 3.6 µs here (about 3 % of records' CPU per request). single-query.test.ts answers every
 * kind of call both ways and compares.
 */
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

/** A procedure's answer, or its error thrown, as calling the procedure itself gives them. */
async function callProcedure(proc: AnyProcedure, opts: Record<string, unknown>): Promise<unknown> {
  const def = proc._def as unknown as ProcedureDef;
  // A procedure with its own caller is called as tRPC would (none of records' has one).
  if (def.experimental_caller) return proc(opts as unknown as Parameters<AnyProcedure>[0]);
  const result = await callMiddlewares(def, 0, opts);
  if (!result)
    throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares - did you forget to `return next()`?' });
  if (!result.ok) throw result.error;
  return result.data;
}

/** A procedure path as tRPC names it, with nothing a URL parser or percent-decoding would change. */
const PLAIN_PATH = /^[A-Za-z][\w]*(?:\.[A-Za-z][\w]*)*$/;

export interface SingleQueryOptions<TContext> {
  router: AnyTRPCRouter;
  createContext(req: IncomingMessage): Promise<TContext>;
  onError(error: TRPCError, path: string): void;
  /** Extra headers for an answer that carries these errors (e.g. Retry-After on a 503). */
  headersFor(errors: readonly TRPCError[]): Record<string, string>;
}

/**
 * Returns a handler that answers a single GET query and returns true, or returns false at once
 * (without touching the request) when the call is for tRPC's adapter.
 */
export function singleQueryHandler<TContext>(
  opts: SingleQueryOptions<TContext>,
): (req: IncomingMessage, res: ServerResponse, path: string, search: string) => boolean {
  const config = opts.router._def._config;
  const procedures = opts.router._def.procedures as Record<string, AnyProcedure | undefined>;

  async function answer(req: IncomingMessage, res: ServerResponse, path: string, proc: AnyProcedure, params: URLSearchParams) {
    const raw = params.get('input');
    let input: unknown;
    // As tRPC reads it: JSON that does not parse is the caller's BAD_REQUEST, with the parser's message.
    const getRawInput = async () => {
      try {
        return (input = raw ? JSON.parse(raw) : undefined);
      } catch (cause) {
        throw new TRPCError({ code: 'BAD_REQUEST', message: cause instanceof Error ? cause.message : 'Invalid input', cause });
      }
    };
    let ctx: TContext | undefined;
    let data: unknown;
    let error: TRPCError | undefined;
    try {
      ctx = await opts.createContext(req);
      data = await callProcedure(proc, { path, getRawInput, ctx, type: 'query', signal: undefined, batchIndex: 0 });
    } catch (cause) {
      error = getTRPCErrorFromUnknown(cause);
      opts.onError(error, path);
    }
    const body = error ? { error: getErrorShape({ config, ctx, error, input, path, type: 'query' }) } : { result: { data } };
    const errors = error ? [error] : [];
    res.statusCode = getHTTPStatusCode(body, errors);
    res.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(opts.headersFor(errors))) res.setHeader(name, value);
    res.setHeader('vary', 'trpc-accept, accept');
    res.end(JSON.stringify(transformTRPCResponse(config, body)));
  }

  return (req, res, path, search) => {
    if (req.method !== 'GET' || !PLAIN_PATH.test(path)) return false;
    const headers = req.headers;
    if (headers['content-type'] !== undefined || headers['trpc-accept'] !== undefined || headers.accept?.includes('jsonl')) return false;
    const proc = Object.hasOwn(procedures, path) ? procedures[path] : undefined;
    if (proc?._def.type !== 'query') return false;
    const params = new URLSearchParams(search);
    if (params.has('batch') || params.has('connectionParams')) return false;
    answer(req, res, path, proc, params).catch((cause: unknown) => {
      // Only writing the answer gets here (a procedure's errors are answers): data that JSON cannot
      // carry. tRPC answers that with a 500 in its error shape too.
      const error = getTRPCErrorFromUnknown(cause);
      opts.onError(error, path);
      if (res.headersSent) return void res.destroy();
      const body = { error: getErrorShape({ config, ctx: undefined, error, input: undefined, path, type: 'query' }) };
      res.writeHead(getHTTPStatusCode(body, [error]), { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    return true;
  };
}
