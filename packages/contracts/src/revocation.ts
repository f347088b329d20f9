// How identity tells the gateway that credentials ended: sessions (sign-out, revoke-other-sessions),
// users (deactivation, role change), OAuth grants (token revocation, refresh-token reuse). Ids only,
// never tokens or e-mail addresses. Each revocation is PUBLISHed for the gateways listening now and
// kept in a sorted set for as long as an access token can live, so that a gateway that (re)connects
// later still refuses what was revoked. While its subscription is down a gateway trusts no cache.
import type { Redis } from 'ioredis';
import { z } from 'zod';

export const REVOCATION_CHANNEL = 'simrs:revocations';
const REVOCATION_LOG = 'simrs:revocations:log';

export const revocationSchema = z.object({
  /** Browser sessions that ended. */
  sessionIds: z.array(z.string()).optional(),
  /** Every credential of this user (optionally only those of `clientId`) issued before `issuedBefore`. */
  userId: z.string().optional(),
  clientId: z.string().optional(),
  /** Epoch seconds; defaults to the time of publication. */
  issuedBefore: z.number().optional(),
  /** `jti` of access tokens revoked one by one (RFC 7009). */
  tokenIds: z.array(z.string()).optional(),
});
export type Revocation = z.infer<typeof revocationSchema>;

/** What a revocation is matched against: an access token's claims (or a refresh token's owner). */
export interface TokenFacts {
  jti?: string;
  sub?: string;
  clientId?: string;
  /** Epoch seconds, as in the `iat` claim. */
  iat?: number;
}

/** The current time as a revocation cut-off: a credential issued before this second is concerned. */
export function cutoffNow(now = Date.now()): number {
  return Math.ceil(now / 1000);
}

/**
 * The revocation rule, the one place it is written: identity (introspection, userinfo) and the gateway
 * (every API call) both ask it whether `revocation` ends the token described by `token`.
 */
export function revokes(revocation: Revocation, token: TokenFacts): boolean {
  if (token.jti !== undefined && revocation.tokenIds?.includes(token.jti)) return true;
  if (revocation.userId === undefined || revocation.userId !== token.sub) return false;
  if (revocation.clientId && revocation.clientId !== token.clientId) return false;
  return (token.iat ?? 0) < (revocation.issuedBefore ?? Number.POSITIVE_INFINITY);
}

export function encodeRevocation(revocation: Revocation): string {
  return JSON.stringify(revocationSchema.parse(revocation));
}

export function decodeRevocation(message: string): Revocation | undefined {
  try {
    const parsed = revocationSchema.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Publishes a revocation and keeps it for `keepSeconds` (the longest access-token lifetime). */
export async function publishRevocation(redis: Redis, revocation: Revocation, keepSeconds = 3600): Promise<void> {
  const now = Date.now();
  const message = encodeRevocation({ issuedBefore: cutoffNow(now), ...revocation });
  await redis
    .multi()
    .zadd(REVOCATION_LOG, now + keepSeconds * 1000, `${now}:${Math.random().toString(36).slice(2)}:${message}`)
    .zremrangebyscore(REVOCATION_LOG, 0, now)
    .publish(REVOCATION_CHANNEL, message)
    .exec();
}

/** Every revocation still in force, for a gateway that just (re)subscribed. */
export async function loadRevocations(redis: Redis): Promise<Revocation[]> {
  const entries = await redis.zrangebyscore(REVOCATION_LOG, Date.now(), '+inf');
  return entries
    .map((e) => decodeRevocation(e.slice(e.indexOf(':', e.indexOf(':') + 1) + 1)))
    .filter((r): r is Revocation => r !== undefined);
}
