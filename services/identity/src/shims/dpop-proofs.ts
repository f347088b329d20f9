// SHIM: DPoP (RFC 9449) proof ids reserved single-use in Redis, shared by every identity replica.
//
// Replaces: Better Auth's DPoP replay store (`createDpopReplayStore` over the internal adapter's
// `reserveVerificationValue`), which with a secondary storage refuses to work unless
// `verification.storeInDatabase` is set, which would put every sign-in code and authorization code in
// Postgres too. Only reservations of DPoP proof ids (`dpop-proof:` identifiers) are answered here (an
// atomic INCR with an expiry, under the keyed-hash key names); every other goes to Better Auth.
// Below the public API: the internal adapter's `reserveVerificationValue`, replaced on the context.
// No public way found in better-auth 1.7.6-1.7.25 / @better-auth/oauth-provider 1.7.5: the provider
// builds its replay store inline at the token and userinfo endpoints (no option), a plugin's `init`
// cannot replace the internal adapter (Better Auth builds it after every init), and a `hooks.before`
// on /oauth2/token could check the jti in Redis but Better Auth's own reservation would still run and
// fail without `storeInDatabase`.
// Gain: correctness, not speed.
// Upstream: none found asking for a replay store outside the database; better-auth/better-auth#10039
// (DPoP support) chose "anti-replay holds across instances wherever verification is database-backed".
// Upgrade test: dpop-proofs.upgrade.test.ts (the provider still reserves `dpop-proof:` ids through
// the internal adapter, which still refuses them without storeInDatabase; the patch answers them).
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
