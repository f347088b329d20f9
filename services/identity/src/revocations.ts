// Tells the gateway that sessions ended, so that it drops what it cached at once. Ids only.
import type { Redis } from 'ioredis';
import type { Logger } from '@simrs/platform/logger';
import { publishRevocation } from '@simrs/platform/revocation';
import type { Revocation } from '@simrs/platform/revocation';

export interface Revocations {
  publish(revocation: Revocation): Promise<void>;
}

export function createRevocations(redis: Redis, log: Logger): Revocations {
  return {
    async publish(revocation) {
      try {
        // Published now and kept in the revocation log for gateways that subscribe later.
        await publishRevocation(redis, revocation);
      } catch (err) {
        // The gateway distrusts its cache while its own subscription is down, which is what a Redis
        // outage looks like from there; the session itself is already gone from storage.
        log.error({ err: (err as Error).message, ...revocation }, 'revocation not published');
      }
    },
  };
}
