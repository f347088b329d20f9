// Callers over their request rate get 429 before anything reaches a service. Counts live in Redis
// (rate-limiter-flexible's RateLimiterRedis, one atomic script per request), so a limit holds across
// every gateway replica: the sum over replicas is bounded by the one figure. Keys are a keyed hash of
// the caller (user, OAuth client or client IP), never a token or an address.
//
// Redis down: each limiter falls back at once (no waiting on a reconnect) to an in-memory insurance
// limiter with the same figure, so a replica keeps limiting on its own and the bound becomes
// replicas x limit for the outage, never unlimited; requests are not refused because a counter is
// unavailable (credentialed ones mostly get 503 anyway: the revocation feed and sessions are in Redis).
import { createHmac, hkdfSync } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from '@simrs/platform/redis';

/** Redis key prefix of the gateway's limits; the rest of a key name is an HMAC. */
export const LIMIT_KEY_PREFIX = 'simrs:gw:rl';

/** The HMAC key for limit key names, derived from a secret every replica shares (one purpose, one key). */
export function limitKeySecret(sharedSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(sharedSecret, 'utf8'), 'simrs-gateway', 'rate-limit-key-name/v1', 32));
}

export interface LimitOptions {
  /** Part of the Redis key names: one limiter per name. */
  name: string;
  perMinute: number;
  redis: Redis;
  keySecret: Buffer;
}

export class CallerRateLimit {
  private readonly limiter: RateLimiterRedis | undefined;
  private readonly keySecret: Buffer;

  constructor(options: LimitOptions) {
    this.keySecret = options.keySecret;
    this.limiter =
      options.perMinute > 0
        ? new RateLimiterRedis({
            storeClient: options.redis,
            keyPrefix: `${LIMIT_KEY_PREFIX}:${options.name}`,
            points: options.perMinute,
            duration: 60,
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory({ points: options.perMinute, duration: 60 }),
          })
        : undefined;
  }

  private hashed(key: string): string {
    return createHmac('sha256', this.keySecret).update(key, 'utf8').digest('base64url');
  }

  /** Seconds to wait when `key` has no points left, without spending one. */
  async blocked(key: string): Promise<number | undefined> {
    const state = await this.limiter?.get(this.hashed(key));
    return state && state.remainingPoints <= 0 ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : undefined;
  }

  /** Resolves undefined when allowed, else the seconds to wait. */
  async check(key: string): Promise<number | undefined> {
    if (!this.limiter) return undefined;
    try {
      await this.limiter.consume(this.hashed(key));
      return undefined;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  }
}
