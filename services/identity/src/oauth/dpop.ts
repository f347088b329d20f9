// DPoP (RFC 9449) at identity's token endpoint is Better Auth's: it verifies the proof and binds the
// tokens to its key (cnf.jkt). It keeps proof ids single-use through `reserveVerificationValue`, which
// Better Auth only allows with verification values in Postgres (`verification.storeInDatabase`) — and
// that would put every sign-in code and authorization code there too. So the reservation of DPoP
// proof ids alone is answered from Redis (an atomic INCR with an expiry, under the keyed-hash key
// names), shared by every identity replica; every other reservation goes to Better Auth as before.
import type { IdentityStorage } from '../sessions/index.ts';

interface Reservations {
  reserveVerificationValue(data: { identifier: string; value: string; expiresAt: Date }): Promise<boolean>;
}

const DPOP_PROOF_PREFIX = 'dpop-proof:';

export function reserveDpopProofsInRedis(authContext: object, storage: IdentityStorage): void {
  const internalAdapter = (authContext as { internalAdapter: Reservations }).internalAdapter;
  const original = internalAdapter.reserveVerificationValue.bind(internalAdapter);
  internalAdapter.reserveVerificationValue = async (data) => {
    if (!data.identifier.startsWith(DPOP_PROOF_PREFIX)) return original(data);
    const ttlSeconds = Math.max(1, Math.ceil((data.expiresAt.getTime() - Date.now()) / 1000));
    return (await storage.increment(`oauth-${data.identifier}`, ttlSeconds)) === 1;
  };
}
