// The per-caller request budget as middleware; the counting is limiter.ts's (in Redis, shared by replicas).
import type { Request, RequestHandler } from 'express';
import { callerOf, sendError } from '../server/index.ts';
import type { CallerRateLimit } from './limiter.ts';

/** The key of a per-client-IP count: the client's address as seen through trusted proxies only. */
export function clientKey(req: Request): string {
  return `ip:${req.ip}`;
}

/** After authenticate: spends one request of the caller's budget (user or OAuth client, else client IP). */
export function rateLimit(limit: CallerRateLimit): RequestHandler {
  return async (req, res, next) => {
    const caller = callerOf(res);
    const wait = await limit.check(caller ? `${caller.principal.clientId ?? ''}:${caller.principal.userId}` : clientKey(req));
    if (wait !== undefined)
      return sendError(res, 'TOO_MANY_REQUESTS', `too many requests, retry in ${wait} s`, { 'retry-after': String(wait) });
    next();
  };
}
