// Tells the gateway that sessions or OAuth grants ended, so that it drops what it cached at once and
// refuses the access tokens concerned. Ids only.
import type { Redis } from 'ioredis';
import type { Logger } from '@simrs/platform/logger';
import { loadRevocations, publishRevocation, revokes, withCutoff } from '@simrs/contracts/revocation';
import type { Revocation, TokenFacts } from '@simrs/contracts/revocation';

export interface Revocations {
  publish(revocation: Revocation): Promise<void>;
  /** Whether an access token with these claims was revoked (read from the revocation log). */
  isRevoked(token: TokenFacts): Promise<boolean>;
}

/**
 * `keepSeconds`: how long a revocation stays in the log; at least the longest access-token lifetime.
 * A revocation that cannot be published (Redis down) is kept in memory and retried until it is, with
 * its cut-off time fixed when it happened: while Redis is down the gateway refuses access tokens (it
 * cannot hear revocations), and once both are back the gateway reloads the log, which then has it.
 */
export function createRevocations(redis: Redis, log: Logger, keepSeconds = 3600): Revocations {
  const pending: Revocation[] = [];
  let retrying: NodeJS.Timeout | undefined;

  const retry = (delayMs: number) => {
    retrying ??= setTimeout(async () => {
      retrying = undefined;
      while (pending.length > 0) {
        try {
          await publishRevocation(redis, pending[0]!, keepSeconds);
          pending.shift();
        } catch {
          return retry(Math.min(delayMs * 2, 30_000));
        }
      }
      log.info('pending revocations published');
    }, delayMs);
    retrying.unref();
  };

  return {
    async publish(revocation) {
      const fixed = withCutoff(revocation);
      try {
        // Published now and kept in the revocation log for gateways that subscribe later.
        await publishRevocation(redis, fixed, keepSeconds);
      } catch (err) {
        pending.push(fixed);
        log.error({ err: (err as Error).message, pending: pending.length }, 'revocation not published yet, retrying');
        retry(500);
      }
    },
    async isRevoked(token) {
      return (await loadRevocations(redis)).some((r) => revokes(r, token));
    },
  };
}
