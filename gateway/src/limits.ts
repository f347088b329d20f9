// What the gateway refuses before anything reaches a service: bodies over the size limit (413) and
// callers over their request rate (429). Rates are counted in memory per replica (no Redis round
// trip on the hot path), per signed-in user or client, else per client IP; identity keeps its own,
// stricter, Redis-backed limits on the sign-in endpoints.
import type { IncomingMessage } from 'node:http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export class PayloadTooLarge extends Error {}
export class BodyTimeout extends Error {}

/**
 * Reads a whole request body (chunked or not) before any upstream connection is taken, so that a
 * client trickling its body holds only its own socket, never one of the pool's connections.
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    const timer = setTimeout(() => fail(new BodyTimeout(`request body not received within ${timeoutMs} ms`)), timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      req.off('data', onData);
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) return fail(new PayloadTooLarge(`request body over ${maxBytes} bytes`));
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.once('error', fail);
  });
}

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
