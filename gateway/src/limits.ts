// What the gateway refuses before anything reaches a service: bodies over the size limit (413) and
// callers over their request rate (429). Rates are counted in memory per replica (no Redis round
// trip on the hot path), per signed-in user or client, else per client IP; identity keeps its own,
// stricter, Redis-backed limits on the sign-in endpoints.
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export class PayloadTooLarge extends Error {}

/** Passes a request body through, failing once it exceeds `maxBytes` (chunked bodies included). */
export function bodyLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > maxBytes) callback(new PayloadTooLarge(`request body over ${maxBytes} bytes`));
      else callback(null, chunk);
    },
  });
}

export class CallerRateLimit {
  private readonly limiter: RateLimiterMemory | undefined;

  constructor(perMinute: number) {
    this.limiter = perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : undefined;
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
