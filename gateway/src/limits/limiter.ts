// Callers over their request rate get 429 before anything reaches a service. Counts live in Redis
// (rate-limiter-flexible's RateLimiterRedis, one atomic script per request), so a limit holds across
// every gateway replica: the sum over replicas is bounded by the one figure. Keys are a keyed hash of
// the caller (user, OAuth client or client IP), never a token or an address.
//
// Redis down: each limiter falls back at once (no waiting on a reconnect) to an in-memory insurance
// limiter with the same figure, so a replica keeps limiting on its own and the bound becomes
// replicas x limit for the outage, never unlimited; requests are not refused because a counter is
// unavailable (credentialed ones mostly get 503 anyway: the revocation feed and sessions are in Redis).
import { createHmac, createSecretKey, hkdfSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from '@simrs/platform/redis';

/** Redis key prefix of the gateway's limits; the rest of a key name is an HMAC. */
export const LIMIT_KEY_PREFIX = 'simrs:gw:rl';

/** The HMAC key for limit key names, derived from a secret every replica shares (one purpose, one key). */
export function limitKeySecret(sharedSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(sharedSecret, 'utf8'), 'simrs-gateway', 'rate-limit-key-name/v1', 32));
}

/**
 * The command refused-then-spend.ts runs: KEYS[1] the IP's refused count, KEYS[2] the caller's count;
 * ARGV[1] the refused limit, ARGV[2] the caller's window in seconds. The GET blocked() sends, then,
 * only below that limit, rate-limiter-flexible's own consume script (its key, value and expiry).
 */
export const REFUSED_THEN_SPEND = 'simrsRefusedThenSpend';
const REFUSED_THEN_SPEND_SCRIPT = `local spent = tonumber(redis.call('get', KEYS[1]))
if spent and spent >= tonumber(ARGV[1]) then return {-1, redis.call('pttl', KEYS[1])} end
redis.call('set', KEYS[2], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[2], 1)
local ttl = redis.call('pttl', KEYS[2])
if ttl == -1 then
  redis.call('expire', KEYS[2], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}`;

export interface LimitOptions {
  /** Part of the Redis key names: one limiter per name. */
  name: string;
  perMinute: number;
  redis: Redis;
  keySecret: Buffer;
}

export class CallerRateLimit {
  readonly limiter: RateLimiterRedis | undefined;
  readonly redis: Redis;
  readonly points: number;
  private readonly keySecret: KeyObject;
  /** Key names already computed: the same callers come back on every request (bounded, oldest out). */
  private readonly names = new Map<string, string>();

  constructor(options: LimitOptions) {
    this.keySecret = createSecretKey(options.keySecret);
    this.redis = options.redis;
    this.points = options.perMinute;
    // Defined with the limiter, before any traffic: ioredis gives an auto-pipeline already queued in this
    // tick no command defined after it was opened (the call would be lost and the pipeline's answers misaligned).
    if (!(REFUSED_THEN_SPEND in options.redis))
      options.redis.defineCommand(REFUSED_THEN_SPEND, { numberOfKeys: 2, lua: REFUSED_THEN_SPEND_SCRIPT });
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

  /** The Redis key that counts `key`'s points (the limiter's own key name). */
  redisKey(key: string): string {
    return this.limiter!.getKey(this.hashed(key));
  }

  private hashed(key: string): string {
    let name = this.names.get(key);
    if (name === undefined) {
      name = createHmac('sha256', this.keySecret).update(key, 'utf8').digest('base64url');
      if (this.names.size >= 10_000) this.names.delete(this.names.keys().next().value!);
      this.names.set(key, name);
    }
    return name;
  }

  /** Seconds to wait when `key` has no points left, without spending one. */
  async blocked(key: string): Promise<number | undefined> {
    if (!this.limiter) return undefined;
    const name = this.hashed(key);
    // Nearly every caller is far from the limit: one GET of the count (auto-pipelined with other
    // requests' commands) says so, where the limiter's get() sends MULTI, GET, PTTL, EXEC. Only a
    // caller at the limit (or Redis failing, then the insurance limiter answers) goes the long way.
    if (this.redis.status === 'ready') {
      const spent = await this.redis.get(this.limiter.getKey(name)).catch(() => undefined);
      if (spent === null || (spent !== undefined && Number(spent) < this.points)) return undefined;
    }
    const state = await this.limiter.get(name);
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
