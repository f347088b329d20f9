// Callers over their request rate get 429 before anything reaches a service. Rates are counted in
// memory per replica (no Redis round trip on the hot path), per signed-in user or client, else per
// client IP; identity keeps its own, stricter, Redis-backed limits on the sign-in endpoints.
import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { callerOf, sendError } from '../server/index.ts';

export class CallerRateLimit {
  private readonly limiter: RateLimiterMemory | undefined;

  constructor(perMinute: number) {
    this.limiter = perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : undefined;
  }

  /** Seconds to wait when `key` has no points left, without spending one. */
  async blocked(key: string): Promise<number | undefined> {
    const state = await this.limiter?.get(key);
    return state && state.remainingPoints <= 0 ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : undefined;
  }

  /** Resolves undefined when allowed, else the seconds to wait. */
  async check(key: string): Promise<number | undefined> {
    if (!this.limiter) return undefined;
    try {
      await this.limiter.consume(key);
      return undefined;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  }
}

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
