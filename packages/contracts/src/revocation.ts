// How identity tells the gateway that credentials ended: sessions (sign-out, revoke-other-sessions),
// users (deactivation, role change), OAuth grants (token revocation, refresh-token reuse, a replayed
// authorization code). Ids only, never tokens or e-mail addresses. Each revocation is PUBLISHed for the
// gateways listening now and kept in a sorted set for as long as an access token can live, so that a
// gateway that (re)connects later still refuses what was revoked. While its subscription is down a
// gateway trusts no cache.
//
// Why a revocation can never kill a token issued after it:
// - an OAuth grant is named by an identifier carried in each of its access tokens (GRANT_CLAIM): a
//   revoked grant issues nothing more (its code is spent, its refresh tokens deleted), so "every token
//   of grant G" never reaches a later grant, whatever the clocks say;
// - a single access token is named by its `jti`;
// - only user-wide revocations (deactivation, role change) need a time: tokens carry identity's issue
//   time in milliseconds (ISSUED_AT_MS_CLAIM) and the cut-off is identity's clock in milliseconds when
//   it published. A token stamped in the very millisecond of the cut-off is not concerned.
import type { Redis } from 'ioredis';
import { z } from 'zod';

export const REVOCATION_CHANNEL = 'simrs:revocations';
const REVOCATION_LOG = 'simrs:revocations:log';

export const revocationSchema = z.object({
  /** Browser sessions that ended. */
  sessionIds: z.array(z.string()).optional(),
  /** OAuth grants that ended (RFC 7009 §2.1: the refresh token's grant; a reused refresh token's family; a replayed code's grant). */
  grantIds: z.array(z.string()).optional(),
  /** Every credential of this user (optionally only those of `clientId`) issued before `issuedBeforeMs`. */
  userId: z.string().optional(),
  clientId: z.string().optional(),
  /** Epoch milliseconds on identity's clock; defaults to the time of publication. */
  issuedBeforeMs: z.number().optional(),
  /** `jti` of access tokens revoked one by one (RFC 7009). */
  tokenIds: z.array(z.string()).optional(),
});
export type Revocation = z.infer<typeof revocationSchema>;

/** What a revocation is matched against: an access token's claims. */
export interface TokenFacts {
  jti?: string;
  sub?: string;
  clientId?: string;
  /** The grant the token belongs to (GRANT_CLAIM). */
  grantId?: string;
  /** Epoch ms when identity issued it (ISSUED_AT_MS_CLAIM; for a token without it, `iat` × 1000). */
  issuedAtMs?: number;
}

/**
 * The revocation rule, the one place it is written: identity (introspection, userinfo) and the gateway
 * (every API call) both ask it whether `revocation` ends the token described by `token`.
 */
export function revokes(revocation: Revocation, token: TokenFacts): boolean {
  if (token.jti !== undefined && revocation.tokenIds?.includes(token.jti)) return true;
  if (token.grantId !== undefined && revocation.grantIds?.includes(token.grantId)) return true;
  if (revocation.userId === undefined || revocation.userId !== token.sub) return false;
  if (revocation.clientId && revocation.clientId !== token.clientId) return false;
  // Strictly before: at the same millisecond (or later) the token was issued after the revocation.
  return (token.issuedAtMs ?? 0) < (revocation.issuedBeforeMs ?? Number.POSITIVE_INFINITY);
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

/** A user-wide revocation without a cut-off gets the time it is published; the others need none. */
export function withCutoff(revocation: Revocation, now = Date.now()): Revocation {
  return revocation.userId !== undefined && revocation.issuedBeforeMs === undefined ? { ...revocation, issuedBeforeMs: now } : revocation;
}

/** Publishes a revocation and keeps it for `keepSeconds` (the longest access-token lifetime). */
export async function publishRevocation(redis: Redis, revocation: Revocation, keepSeconds = 3600): Promise<void> {
  const now = Date.now();
  const message = encodeRevocation(withCutoff(revocation, now));
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
