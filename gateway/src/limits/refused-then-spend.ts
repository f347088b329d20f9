// The everyday API call in one Redis round trip. A request that presents a credential asks whether its
// client IP is cooling down from rejected credentials, then spends one point of its caller's budget:
// two commands, one after the other. When nothing had to be verified in between (the credential was
// served from memory: no signature checked, identity not asked), both go together in one Lua script
// that does exactly what the two did: the refused count's GET and, only when the IP is not over that
// limit, rate-limiter-flexible's own consume on the caller's key (the same key names, values and
// expiries, so the two ways share every count). Redis not ready, or the script failing: the two
// separate calls, each falling back to its in-memory insurance limiter as before.
import { REFUSED_THEN_SPEND } from './limiter.ts';
import type { CallerRateLimit } from './limiter.ts';

type Scripted = Record<
  typeof REFUSED_THEN_SPEND,
  (refusedKey: string, callerKey: string, refusedPoints: number, seconds: number) => Promise<[number, number]>
>;

/** Seconds to wait: at least 1, as rate-limiter-flexible's answers are turned into Retry-After. */
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export interface Verdict {
  /** The client IP is over the refused-credential limit: seconds until it may present credentials again. */
  cooling?: number;
  /** The caller is over its budget: seconds to wait. */
  wait?: number;
}

/**
 * The refused-credential verdict for `ipKey`, then (only when not cooling) one point of `callerKey`'s
 * budget spent: the answers `refused.blocked(ipKey)` and `caller.check(callerKey)` give in turn.
 */
export async function refusedThenSpend(
  refused: CallerRateLimit,
  ipKey: string,
  caller: CallerRateLimit,
  callerKey: string,
): Promise<Verdict> {
  const redis = caller.redis;
  if (refused.limiter && caller.limiter && refused.redis === redis && redis.status === 'ready') {
    const run = (redis as unknown as Scripted)[REFUSED_THEN_SPEND].bind(redis);
    const answer = await run(refused.redisKey(ipKey), caller.redisKey(callerKey), refused.points, caller.limiter.duration).catch(
      () => undefined,
    );
    if (answer) {
      const [consumed, ttl] = answer.map(Number) as [number, number];
      if (consumed === -1) return { cooling: seconds(ttl) };
      return consumed > caller.points ? { wait: seconds(ttl) } : {};
    }
  }
  const cooling = await refused.blocked(ipKey);
  if (cooling !== undefined) return { cooling };
  const wait = await caller.check(callerKey);
  return wait === undefined ? {} : { wait };
}
