// SHIM: tRPC's everyday calls, one query sent as GET (`/trpc/pasien.list?input=...`) and one mutation sent
// as POST with a JSON body (`/trpc/vital.record`), answered straight on Node's request and response
// instead of through tRPC's node adapter, which turns every request into a WHATWG Request (URL, Headers,
// AbortController, a ReadableStream over the body) and every answer into a Response read back through a
// WritableStream and written in two pieces (the body, then the chunked end). The procedure runs its
// middlewares as tRPC's `callTRPCProcedure` does (the same guards, input validation and error mapping),
// through procedure-call.ts, and the answer is built with tRPC's public error shape, status and
// serialisation helpers, so it is the adapter's answer byte for byte (server/single-call.test.ts compares
// the two). Anything else (batches, HEAD, streaming, an encoded or unknown path, a procedure called with
// the other method) is left to the adapter.
//
// Replaces: `createHTTPHandler` (@trpc/server/adapters/standalone) for single GET queries and single POST
// mutations.
// Below the public API: only through trpc-router.ts (the router's config for the helpers, and which
// paths are queries or mutations, to leave the rest to the adapter), procedure-call.ts (the
// middleware chain), and tRPC's `defaultTransformer` (unstable-core-do-not-import), compared by identity
// with the router's: without a transformer of its own the answer is written without
// transformTRPCResponse's three object copies (0.6 % of records' busy samples in a `pasien.list`
// profile under the bench's load, 2026-11-26; with any other transformer, or should tRPC wrap its
// default, the copies are made as before).
// Gain measured, queries: records CPU per `pasien.list` (records straight, 50 connections), adapter
// 1.090 ms (median of 5 rounds, range 0.699-2.448) against 0.599 ms with this path (range 0.534-0.766):
// 0.49 ms, about 45 % of records' CPU per request. `AB_BASE_REF=<this path> AB_PATHS=direct,bearer
// AB_ROUNDS=5 node bench/ab.ts`, 2026-11-25, on the shared 2-core machine (both stacks in turns).
// Mutations: `vital.record` (four signs) served by the adapter and by this path side by side in one
// process, the database answered in memory, 10 keep-alive connections from undici in the same process,
// 10 rounds of 2,000 calls each way in alternating order: 494 µs of the process's CPU per call through
// the adapter against 150 µs this way (medians; the client's share is the same in both), 2026-11-26,
// load average 12-15 on the shared 2-core machine.
// The middleware chain is procedure-call.ts's, with its own measured gain.
// Upstream: none found. tRPC v11's adapters all go through its Fetch API resolver; there is no issue or
// PR for a node-native path, and the maintainers decline new core adapters (trpc/trpc#3177).
// Upgrade test: trpc-router.upgrade.test.ts; server/single-call.test.ts (the adapter's answers, byte for byte).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError, transformTRPCResponse } from '@trpc/server';
import type { AnyTRPCRouter } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import { defaultTransformer } from '@trpc/server/unstable-core-do-not-import';
import { callProcedure } from './procedure-call.ts';
import { procedureTypes, routerConfig } from './trpc-router.ts';

/** A procedure path as tRPC names it, with nothing a URL parser or percent-decoding would change. */
const PLAIN_PATH = /^[A-Za-z][\w]*(?:\.[A-Za-z][\w]*)*$/;

export interface SingleCallOptions<TContext> {
  router: AnyTRPCRouter;
  createContext(req: IncomingMessage): Promise<TContext>;
  onError(error: TRPCError, path: string): void;
  /** Extra headers for an answer that carries these errors (e.g. Retry-After on a 503). */
  headersFor(errors: readonly TRPCError[]): Record<string, string>;
  /** The largest request body the adapter would read (its maxBodySize). */
  maxBodyBytes: number;
}

type CallType = 'query' | 'mutation';

/** A POST body, read whole as the adapter reads it: PAYLOAD_TOO_LARGE past the limit. */
function readText(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off('data', onData);
      reject(new TRPCError({ code: 'PAYLOAD_TOO_LARGE' }));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/**
 * Returns a handler that answers a single GET query or POST mutation and returns true, or returns
 * false at once (without touching the request) when the call is for tRPC's adapter.
 */
export function singleCallHandler<TContext>(
  opts: SingleCallOptions<TContext>,
): (req: IncomingMessage, res: ServerResponse, path: string, search: string) => boolean {
  const config = routerConfig(opts.router);
  const types = procedureTypes(opts.router);

  async function answer(req: IncomingMessage, res: ServerResponse, path: string, type: CallType, readRaw: () => Promise<string | null>) {
    let input: unknown;
    // As tRPC reads it: JSON that does not parse is the caller's BAD_REQUEST, with the parser's message.
    const getRawInput = async () => {
      const raw = await readRaw();
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
      data = await callProcedure(opts.router, { path, getRawInput, ctx, type, signal: undefined, batchIndex: 0 });
    } catch (cause) {
      error = getTRPCErrorFromUnknown(cause);
      opts.onError(error, path);
    }
    const body = error ? { error: getTRPCErrorShape({ config, ctx, error, input, path, type }) } : { result: { data } };
    const errors = error ? [error] : [];
    res.statusCode = getHTTPStatusCode(body, errors);
    res.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(opts.headersFor(errors))) res.setHeader(name, value);
    res.setHeader('vary', 'trpc-accept, accept');
    // Without a transformer of the router's own, tRPC's serialises to the same values, through three
    // object copies per answer: the body is written as it is.
    res.end(JSON.stringify(config.transformer === defaultTransformer ? body : transformTRPCResponse(config, body)));
  }

  /** The call's type and how to read its raw input, or undefined when it is the adapter's. */
  function callOf(req: IncomingMessage, path: string, params: URLSearchParams): [CallType, () => Promise<string | null>] | undefined {
    const headers = req.headers;
    if (headers['trpc-accept'] !== undefined || headers.accept?.includes('jsonl')) return undefined;
    if (params.has('batch') || params.has('connectionParams')) return undefined;
    const type = types.get(path);
    if (req.method === 'GET' && type === 'query' && headers['content-type'] === undefined)
      return ['query', () => Promise.resolve(params.get('input'))];
    if (
      req.method === 'POST' &&
      type === 'mutation' &&
      /^application\/json\b/i.test(headers['content-type'] ?? '') &&
      !params.has('input')
    ) {
      const body = readText(req, opts.maxBodyBytes);
      body.catch(() => {});
      return ['mutation', () => body];
    }
    return undefined;
  }

  return (req, res, path, search) => {
    if (!PLAIN_PATH.test(path)) return false;
    const params = new URLSearchParams(search);
    const call = callOf(req, path, params);
    if (!call) return false;
    const [type, readRaw] = call;
    answer(req, res, path, type, readRaw).catch((cause: unknown) => {
      // Only writing the answer gets here (a procedure's errors are answers): data that JSON cannot
      // carry. tRPC answers that with a 500 in its error shape too.
      const error = getTRPCErrorFromUnknown(cause);
      opts.onError(error, path);
      if (res.headersSent) return void res.destroy();
      const body = { error: getTRPCErrorShape({ config, ctx: undefined, error, input: undefined, path, type }) };
      res.writeHead(getHTTPStatusCode(body, [error]), { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    return true;
  };
}
