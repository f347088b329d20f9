// A lean streaming reverse proxy on undici (DESIGN: no http-proxy-middleware on the hot path). An
// upstream that refuses or does not answer in time gives a quick 503 envelope, never a hang.
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { Pool } from 'undici';
import { injectTraceContext, log, sendError } from '../server/index.ts';
import { BodyTimeout, PayloadTooLarge, readBody, tooDeep } from './body.ts';
import { MAX_JSON_DEPTH } from '@simrs/platform/json-depth';
import { HOP_BY_HOP } from '@simrs/platform/hop-by-hop';

/**
 * Trace context is not copied: the gateway's own goes instead (a child of the caller's, injected by the
 * undici instrumentation or server/tracing.ts), and an upstream given both would see two traceparent
 * values and start a new trace.
 */
const TRACE_CONTEXT = new Set(['traceparent', 'tracestate']);

export interface Upstream {
  name: string;
  pool: Pool;
}

export function upstream(name: string, url: string, connectTimeoutMs: number, timeoutMs: number): Upstream {
  return {
    name,
    pool: new Pool(new URL(url).origin, {
      connections: 128,
      connect: { timeout: connectTimeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 10_000,
    }),
  };
}

/**
 * Copies request headers minus hop-by-hop ones and those named in `set`, then adds `set`'s values
 * (undefined: the header is dropped). One pass, no intermediate arrays: it runs on every request.
 */
export function forwardHeaders(headers: IncomingHttpHeaders, set: Record<string, string | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || TRACE_CONTEXT.has(name) || Object.hasOwn(set, name)) continue;
    out[name] = value;
  }
  for (const name in set) {
    const value = set[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export async function proxy(
  target: Upstream,
  req: Request,
  res: Response,
  headers: Record<string, string | string[]>,
  limits: { maxBodyBytes: number; bodyTimeoutMs: number },
  /** Headers added to an upstream 401 (the gateway's challenge for a caller without credentials). */
  onUnauthorized?: Record<string, string>,
): Promise<void> {
  // A GET declaring a body too large is refused like any other (readBody reads it only to refuse it).
  const hasBody = (req.method !== 'GET' && req.method !== 'HEAD') || Number(req.headers['content-length'] ?? 0) > limits.maxBodyBytes;
  let body: Buffer | null = null;
  try {
    if (hasBody) body = await readBody(req, limits.maxBodyBytes, limits.bodyTimeoutMs);
  } catch (err) {
    if (err instanceof PayloadTooLarge)
      return sendError(res, 'PAYLOAD_TOO_LARGE', `request body over ${limits.maxBodyBytes} bytes`, { connection: 'close' });
    if (err instanceof BodyTimeout) return sendError(res, 'TIMEOUT', 'the request body did not arrive in time', { connection: 'close' });
    return void res.destroy();
  }
  const deep = tooDeep(req, body);
  if (deep) return sendError(res, 'BAD_REQUEST', `JSON in the request ${deep} nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (body) headers['content-length'] = String(body.length);
  injectTraceContext(headers);
  let answered = false;
  try {
    // undici writes the upstream's body straight into the response (no intermediate stream to pipe),
    // and aborts the upstream request if the client goes away.
    await target.pool.stream({ method: req.method as 'GET', path: req.originalUrl, headers, body }, ({ statusCode, headers: answer }) => {
      answered = true;
      res.status(statusCode);
      for (const name in answer) {
        const value = answer[name];
        if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
      }
      if (statusCode === 401) for (const [name, value] of Object.entries(onUnauthorized ?? {})) res.setHeader(name, value);
      return res;
    });
  } catch (err) {
    // Once the upstream has answered, the client went away or the upstream broke off: the response is cut.
    if (answered || res.headersSent) return void res.destroy();
    const code = (err as { code?: string }).code;
    log.warn({ upstream: target.name, code }, 'upstream unavailable');
    sendError(res, 'SERVICE_UNAVAILABLE', `${target.name} is unavailable, try again shortly`, { 'retry-after': '1' });
  }
}
