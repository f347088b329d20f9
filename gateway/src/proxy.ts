// A lean streaming reverse proxy on undici (DESIGN: no http-proxy-middleware on the hot path). An
// upstream that refuses or does not answer in time gives a quick 503 envelope, never a hang.
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { Pool } from 'undici';
import { envelope } from '@simrs/platform/envelope';
import { bodyLimit, PayloadTooLarge } from './limits.ts';
import { log } from './log.ts';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

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

/** Copies request headers minus hop-by-hop ones, then applies `set` (undefined deletes). */
export function forwardHeaders(headers: IncomingHttpHeaders, set: Record<string, string | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = value;
  }
  for (const [name, value] of Object.entries(set)) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

export async function proxy(
  target: Upstream,
  req: Request,
  res: Response,
  headers: Record<string, string | string[]>,
  maxBodyBytes: number,
): Promise<void> {
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return tooLarge(req, res, maxBodyBytes);
  const limited = hasBody ? req.pipe(bodyLimit(maxBodyBytes)) : null;
  try {
    const upstreamRes = await target.pool.request({
      method: req.method as 'GET',
      path: req.originalUrl,
      headers,
      body: limited,
    });
    res.status(upstreamRes.statusCode);
    for (const [name, value] of Object.entries(upstreamRes.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
    }
    upstreamRes.body.pipe(res);
    upstreamRes.body.on('error', () => res.destroy());
  } catch (err) {
    if (err instanceof PayloadTooLarge) return tooLarge(req, res, maxBodyBytes);
    const code = (err as { code?: string }).code;
    log.warn({ upstream: target.name, code }, 'upstream unavailable');
    if (res.headersSent) return void res.destroy();
    res
      .status(503)
      .set('retry-after', '1')
      .json(envelope('SERVICE_UNAVAILABLE', `${target.name} is unavailable, try again shortly`, procedurePath(req)));
  }
}

function tooLarge(req: Request, res: Response, maxBodyBytes: number): void {
  if (res.headersSent) return void res.destroy();
  // The rest of the body is not read: close the connection rather than drain it.
  res.setHeader('connection', 'close');
  res.status(413).json(envelope('PAYLOAD_TOO_LARGE', `request body over ${maxBodyBytes} bytes`, procedurePath(req)));
}

/** The tRPC procedure path ("pasien.list") or the request path, for the envelope's data.path. */
export function procedurePath(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '';
  return path.startsWith('/trpc/') ? decodeURIComponent(path.slice('/trpc/'.length)) : path;
}
