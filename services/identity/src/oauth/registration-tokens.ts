// Initial access tokens for OAuth dynamic client registration (RFC 7591 §3): a tenant administrator
// issues one (CLI, admin gRPC or the account API), hands it to whoever sets up the integration, and
// the client registered with it belongs to that tenant with the scopes the administrator allowed.
// Single use: consumed when a registration presents it, put back if that registration then fails.
// Stored through the keyed-hash storage, so Redis holds neither the token nor who issued it.
import { randomBytes } from 'node:crypto';
import { SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import { seedScopesOf } from '@simrs/contracts/smart';
import type { IdentityStorage } from '../sessions/index.ts';

/** What every registered client may ask for; `simrs:write` only when an administrator allows it. */
export const CLIENT_BASE_SCOPES = ['openid', 'profile', 'email', 'offline_access', SCOPE_READ] as const;
/** What a client gets when its registration names no scope (the issue's default). */
export const CLIENT_DEFAULT_SCOPES = ['openid', 'profile', 'email', 'offline_access', SCOPE_READ] as const;

export const TOKEN_PREFIX = 'simrs_iat_';

export interface RegistrationGrant {
  tenantId: string;
  /** The administrator who issued it (user id). */
  issuedBy: string;
  /** The scopes a client registered with this token may hold. */
  scopes: string[];
  /** Epoch ms. */
  expiresAt: number;
}

export interface IssuedRegistrationToken extends RegistrationGrant {
  token: string;
}

const storageKey = (token: string) => `oauth-registration-token:${token}`;

export function grantScopes(allowWrite: boolean): string[] {
  return allowWrite ? [...CLIENT_BASE_SCOPES, SCOPE_WRITE] : [...CLIENT_BASE_SCOPES];
}

/**
 * Whether a grant lets a client register `scope`: the grant's own scopes, and the SMART scopes whose
 * actions stand under them (`user/Patient.rs` with simrs:read; `user/Patient.cruds` needs simrs:write).
 */
export function grantAllows(granted: readonly string[], scope: string): boolean {
  return granted.includes(scope) || seedScopesOf(scope).every((s) => s !== scope && granted.includes(s));
}

export function createRegistrationTokens(storage: IdentityStorage, defaultTtlSeconds: number) {
  return {
    async issue(input: { tenantId: string; issuedBy: string; allowWrite: boolean; ttlSeconds?: number }): Promise<IssuedRegistrationToken> {
      const ttl = input.ttlSeconds && input.ttlSeconds > 0 ? input.ttlSeconds : defaultTtlSeconds;
      const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
      const grant: RegistrationGrant = {
        tenantId: input.tenantId,
        issuedBy: input.issuedBy,
        scopes: grantScopes(input.allowWrite),
        expiresAt: Date.now() + ttl * 1000,
      };
      await storage.set(storageKey(token), JSON.stringify(grant), ttl);
      return { token, ...grant };
    },

    /** The grant, removed from storage: a second presentation of the same token finds nothing. */
    async consume(token: string): Promise<RegistrationGrant | undefined> {
      if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return undefined;
      const stored = (await storage.getAndDelete(storageKey(token))) as string | null;
      if (!stored) return undefined;
      const grant = JSON.parse(stored) as RegistrationGrant;
      return grant.expiresAt > Date.now() ? grant : undefined;
    },

    /** Puts a consumed token back (its registration failed) for the rest of its lifetime. */
    async restore(token: string, grant: RegistrationGrant): Promise<void> {
      const ttl = Math.floor((grant.expiresAt - Date.now()) / 1000);
      if (ttl > 0) await storage.set(storageKey(token), JSON.stringify(grant), ttl);
    },
  };
}

export type RegistrationTokens = ReturnType<typeof createRegistrationTokens>;
