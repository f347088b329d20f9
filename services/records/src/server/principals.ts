// The principal header, verified once per token rather than once per request. The gateway mints one
// principal per caller and reuses it for its lifetime (60 s), so the same bytes arrive again and again;
// an HMAC check through WebCrypto on every request was records' largest single cost under load. A
// token is kept only after it verified, and only until its own expiry: the same token verified again
// would give the same answer until then, so nothing is accepted that verifying would refuse.
import { verifyPrincipalUntil } from '@simrs/contracts/principal';
import type { Principal } from '@simrs/contracts/principal';

export interface PrincipalVerifier {
  (token: string): Promise<Principal>;
  readonly size: number;
}

export function principalVerifier(secret: string, options: { maxEntries?: number; now?: () => number } = {}): PrincipalVerifier {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const verified = new Map<string, { principal: Principal; expiresAt: number }>();

  const verify = async (token: string): Promise<Principal> => {
    const hit = verified.get(token);
    if (hit && hit.expiresAt > now()) return hit.principal;
    if (hit) verified.delete(token);
    const fresh = await verifyPrincipalUntil(token, secret);
    if (verified.size >= maxEntries) {
      // Map iterates in insertion order: the oldest entries go first (they expire first too).
      let drop = Math.max(1, Math.floor(maxEntries / 10));
      for (const k of verified.keys()) {
        verified.delete(k);
        if (--drop <= 0) break;
      }
    }
    verified.set(token, fresh);
    return fresh.principal;
  };
  return Object.defineProperty(verify, 'size', { get: () => verified.size }) as PrincipalVerifier;
}
