// SHIM: tRPC's most common call, one query sent as GET (`/trpc/pasien.list?input=...`), answered straight
// on Node's request and response instead of through tRPC's node adapter, which turns every request into a
// WHATWG Request (URL, Headers, AbortController) and every answer into a Response read back through a
// WritableStream. The procedure runs its middlewares as tRPC's `callTRPCProcedure` does (the same guards,
// input validation and error mapping), through procedure-call.ts, and the answer is built with tRPC's public error shape, status and
// serialisation helpers, so it is the adapter's answer byte for byte (server/single-query.test.ts
// compares the two). Anything else (batches, mutations, HEAD, streaming, an encoded or unknown path, a
// body type) is left to the adapter.
//
// Replaces: `createHTTPHandler` (@trpc/server/adapters/standalone) for single GET queries.
// Below the public API: only through trpc-router.ts (the router's config for the helpers, and which
// paths are queries, to leave the rest to the adapter) and procedure-call.ts (the middleware chain).
// Gain measured: records CPU per `pasien.list` (records straight, 50 connections), adapter 1.090 ms
// (median of 5 rounds, range 0.699-2.448) against 0.599 ms with this path (range 0.534-0.766): 0.49 ms,
// about 45 % of records' CPU per request. `AB_BASE_REF=<this path> AB_PATHS=direct,bearer AB_ROUNDS=5
// node bench/ab.ts`, 2026-11-25, on the shared 2-core machine (both stacks in turns). The middleware
// chain is procedure-call.ts's, with its own measured gain.
// Upstream: none found. tRPC v11's adapters all go through its Fetch API resolver; there is no issue or
// PR for a node-native path, and the maintainers decline new core adapters (trpc/trpc#3177).
// Upgrade test: trpc-router.upgrade.test.ts; server/single-query.test.ts (the adapter's answers, byte for byte).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError, transformTRPCResponse } from '@trpc/server';
import type { AnyTRPCRouter } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import { callProcedure } from './procedure-call.ts';
import { procedureTypes, routerConfig } from './trpc-router.ts';

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
  const config = routerConfig(opts.router);
  const types = procedureTypes(opts.router);

  async function answer(req: IncomingMessage, res: ServerResponse, path: string, params: URLSearchParams) {
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
      data = await callProcedure(opts.router, { path, getRawInput, ctx, type: 'query', signal: undefined, batchIndex: 0 });
    } catch (cause) {
      error = getTRPCErrorFromUnknown(cause);
      opts.onError(error, path);
    }
    const body = error ? { error: getTRPCErrorShape({ config, ctx, error, input, path, type: 'query' }) } : { result: { data } };
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
    if (types.get(path) !== 'query') return false;
    const params = new URLSearchParams(search);
    if (params.has('batch') || params.has('connectionParams')) return false;
    answer(req, res, path, params).catch((cause: unknown) => {
      // Only writing the answer gets here (a procedure's errors are answers): data that JSON cannot
      // carry. tRPC answers that with a 500 in its error shape too.
      const error = getTRPCErrorFromUnknown(cause);
      opts.onError(error, path);
      if (res.headersSent) return void res.destroy();
      const body = { error: getTRPCErrorShape({ config, ctx: undefined, error, input: undefined, path, type: 'query' }) };
      res.writeHead(getHTTPStatusCode(body, [error]), { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    return true;
  };
}
