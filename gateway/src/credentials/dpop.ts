// Sender-constrained access tokens (RFC 9449, DPoP) at the gateway. A token bound to a key (`cnf.jkt`)
// is accepted only with the DPoP scheme and a proof signed by that key for this very request: method
// (htm), URL (htu, the public URL without query), the token's hash (ath), fresh (iat within the
// window) and never seen before (jti). The checks are Better Auth's own `enforceDpopBinding` (the
// code identity's token endpoint runs); the jti memory is Redis, SET NX with an expiry, so a proof
// replayed to another gateway replica is refused too. A stolen bound token without the key is useless.
import { DPOP_SIGNING_ALGORITHMS, enforceDpopBinding, isDpopBindingError } from '@better-auth/core/oauth2';
import type { DpopReplayStore } from '@better-auth/core/oauth2';
import type { Redis } from '@simrs/platform/redis';

/** How old a proof may be (RFC 9449 §11.1: short); identity's token endpoint uses the same default. */
export const DPOP_PROOF_MAX_AGE_SECONDS = 60;

/** The challenge a refused DPoP request gets (RFC 9449 §7.1). */
export const dpopChallenge = (error: string, description: string) =>
  `DPoP error="${error}", error_description="${description.replace(/["\\]/g, '')}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;

export class DpopRefused extends Error {
  readonly code: 'invalid_token' | 'invalid_dpop_proof';
  constructor(code: 'invalid_token' | 'invalid_dpop_proof', message: string) {
    super(message);
    this.code = code;
  }
}

/** Proof ids seen, shared by every gateway replica: the key is a hash Better Auth derives (key, method, URL, jti). */
export function redisReplayStore(redis: Redis): DpopReplayStore {
  return {
    async reserve({ key, expiresAt, now }) {
      const ttlMs = Math.max(1000, expiresAt.getTime() - now.getTime());
      return (await redis.set(`simrs:dpop:${key}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
    },
  };
}

export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
  /** The DPoP header, if any. */
  proof?: string;
  method: string;
  /** The public URL of the request (htu is compared with it, query and fragment dropped). */
  url: string;
}

/** Refuses a bound token without a valid proof, and the DPoP scheme with an unbound token. */
export async function checkSenderConstraint(
  presented: PresentedToken,
  jkt: string | undefined,
  replayStore: DpopReplayStore,
): Promise<void> {
  try {
    await enforceDpopBinding({
      payload: jkt ? { cnf: { jkt } } : {},
      authorization: { scheme: presented.scheme, token: presented.token },
      proofJwt: presented.proof,
      method: presented.method,
      url: presented.url,
      replayStore,
      proofMaxAgeSeconds: DPOP_PROOF_MAX_AGE_SECONDS,
    });
  } catch (err) {
    if (isDpopBindingError(err)) throw new DpopRefused(err.code, err.message);
    throw err;
  }
}
