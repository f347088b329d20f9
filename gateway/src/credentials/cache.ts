// Verified credentials, cached in memory by a hash of the credential so that a repeated cookie or
// token costs no gRPC call and no signature check. Entries also keep the principal already minted for
// records, reused until shortly before it expires. Bounded in size and lifetime; evictable by session
// or user when identity announces a revocation.
import { hash } from 'node:crypto';
import { PRINCIPAL_TTL_SECONDS, signPrincipal } from '@simrs/contracts/principal';
import type { Principal } from '@simrs/contracts/principal';
import type { TokenFacts } from '@simrs/contracts/revocation';

/** What a bearer token said about itself, kept to check revocations (and its DPoP key, RFC 9449) on every use. */
export type TokenClaims = TokenFacts & { jkt?: string; audiences?: readonly string[] };

/** A credential that checked out, and whose it is. */
export interface VerifiedCredential {
  /** Hash of the credential (credentialKey): its key in the cache. */
  key: string;
  principal: Principal;
  /** A bearer token's audiences (the resources it was issued for); none for a session. */
  audiences?: readonly string[];
}

interface Entry {
  principal: Principal;
  claims?: TokenClaims;
  /** Epoch ms after which the entry must not be used (credential expiry or cache lifetime). */
  validUntil: number;
  minted?: { token: string; expiresAt: number };
}

const MAX_ENTRIES = 50_000;
const REMINT_MARGIN_MS = 10_000;

export function credentialKey(credential: string): string {
  return hash('sha256', credential, 'base64url');
}

export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  /** Keys by `u:<user id>` and `s:<session id>`, so that a revocation evicts without a scan. */
  private readonly keysByOwner = new Map<string, Set<string>>();
  private readonly secret: string;
  hits = 0;
  misses = 0;

  constructor(secret: string) {
    this.secret = secret;
  }

  get(key: string, now = Date.now()): { principal: Principal; claims?: TokenClaims } | undefined {
    const entry = this.peek(key, now);
    if (entry) this.hits++;
    else this.misses++;
    return entry;
  }

  /** As get, without counting a miss: for a first look that, missing, is followed by get. */
  peek(key: string, now = Date.now()): { principal: Principal; claims?: TokenClaims } | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.validUntil <= now) {
      if (entry) this.remove(key);
      return undefined;
    }
    return entry;
  }

  /** Counts a hit found by peek. */
  countHit(): void {
    this.hits++;
  }

  set(key: string, principal: Principal, validUntil: number, claims?: TokenClaims): void {
    if (this.entries.size >= MAX_ENTRIES) {
      // Map iterates in insertion order: drop the oldest tenth.
      let drop = MAX_ENTRIES / 10;
      for (const k of this.entries.keys()) {
        this.remove(k);
        if (--drop <= 0) break;
      }
    }
    this.remove(key);
    this.entries.set(key, { principal, validUntil, claims });
    for (const owner of owners(principal)) {
      const keys = this.keysByOwner.get(owner) ?? new Set<string>();
      keys.add(key);
      this.keysByOwner.set(owner, keys);
    }
  }

  /**
   * The signed principal for records, minted once per entry lifetime. The one already minted is given
   * back as it is, not in a promise: nearly every request gets that one, and an await per request costs
   * the proxy a microtask turn and a promise for nothing.
   */
  mint(key: string, principal: Principal, now = Date.now()): string | Promise<string> {
    const entry = this.entries.get(key);
    if (entry?.minted && entry.minted.expiresAt - REMINT_MARGIN_MS > now) return entry.minted.token;
    return signPrincipal(principal, this.secret, PRINCIPAL_TTL_SECONDS).then((token) => {
      if (entry) entry.minted = { token, expiresAt: now + PRINCIPAL_TTL_SECONDS * 1000 };
      return token;
    });
  }

  evict(match: { sessionIds?: string[]; userId?: string }): number {
    const tags = [...(match.sessionIds ?? []).map((id) => `s:${id}`), ...(match.userId ? [`u:${match.userId}`] : [])];
    let evicted = 0;
    for (const tag of tags) {
      for (const key of [...(this.keysByOwner.get(tag) ?? [])]) if (this.remove(key)) evicted++;
    }
    return evicted;
  }

  clear(): void {
    this.entries.clear();
    this.keysByOwner.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    for (const owner of owners(entry.principal)) {
      const keys = this.keysByOwner.get(owner);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByOwner.delete(owner);
    }
    return true;
  }
}

function owners(principal: Principal): string[] {
  return [`u:${principal.userId}`, ...(principal.sessionId ? [`s:${principal.sessionId}`] : [])];
}
