// Tells the gateway that sessions or OAuth grants ended, so that it drops what it cached at once and
// refuses the access tokens concerned. Ids only.
import type { Redis } from 'ioredis';
import type { Logger } from '@simrs/platform/logger';
import { loadRevocations, publishRevocation } from '@simrs/platform/revocation';
import type { Revocation } from '@simrs/platform/revocation';

export interface Revocations {
  publish(revocation: Revocation): Promise<void>;
  /** Whether an access token with these claims was revoked (read from the revocation log). */
  isRevoked(token: { jti?: string; sub?: string; clientId?: string; iat?: number }): Promise<boolean>;
}

/** Matches the gateway's rule (gateway/src/auth/revocations.ts). */
export function revokedBy(revocations: Revocation[], token: { jti?: string; sub?: string; clientId?: string; iat?: number }): boolean {
  const iat = token.iat ?? 0;
  return revocations.some(
    (r) =>
      (token.jti !== undefined && (r.tokenIds ?? []).includes(token.jti)) ||
      (r.userId !== undefined &&
        r.userId === token.sub &&
        iat < (r.issuedBefore ?? Number.POSITIVE_INFINITY) &&
        (!r.clientId || r.clientId === token.clientId)),
  );
}

/** `keepSeconds`: how long a revocation stays in the log; at least the longest access-token lifetime. */
export function createRevocations(redis: Redis, log: Logger, keepSeconds = 3600): Revocations {
  return {
    async publish(revocation) {
      try {
        // Published now and kept in the revocation log for gateways that subscribe later.
        await publishRevocation(redis, revocation, keepSeconds);
      } catch (err) {
        // The gateway distrusts its cache while its own subscription is down, which is what a Redis
        // outage looks like from there; the session itself is already gone from storage.
        log.error({ err: (err as Error).message, ...revocation }, 'revocation not published');
      }
    },
    async isRevoked(token) {
      return revokedBy(await loadRevocations(redis), token);
    },
  };
}
