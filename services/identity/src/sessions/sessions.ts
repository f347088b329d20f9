// What the gateway asks identity about a session cookie (ValidateSession), and ending sessions.
import { createHmac } from 'node:crypto';
import type { AuthContext } from '@better-auth/core';
import { isRole, SESSION_SCOPES } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import type { Directory } from '../directory/index.ts';
import { IdentityError } from '../directory/index.ts';
import { safeEqual } from '../keys/index.ts';
import type { Revocations } from './revocations.ts';
import { liveSessionRows } from './rows.ts';
import type { SessionStore } from './rows.ts';
import type { IdentityStorage } from './storage.ts';

export interface SessionPrincipal {
  userId: string;
  tenantId: string;
  role: Role;
  sessionId: string;
  scopes: string[];
  expiresAt: Date;
}

/**
 * The session token inside a session cookie's value: `token.signature`, where the signature is the
 * base64 HMAC-SHA256 of the token under AUTH_SECRET (Better Auth's signed cookie). Browsers send the
 * value URL-encoded; both forms are accepted. Undefined when the signature does not match.
 */
export function tokenFromCookieValue(value: string, secret: string): string | undefined {
  let raw = value.trim();
  if (raw.includes('%')) {
    try {
      raw = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  const dot = raw.lastIndexOf('.');
  if (dot < 1) return undefined;
  const token = raw.slice(0, dot);
  const signature = raw.slice(dot + 1);
  if (signature.length !== 44 || !/^[A-Za-z0-9+/]{43}=$/.test(signature)) return undefined;
  const expected = createHmac('sha256', secret).update(token, 'utf8').digest('base64');
  return safeEqual(signature, expected) ? token : undefined;
}

/** The part of Better Auth's context identity uses directly. */
export type AuthInternals = Pick<AuthContext, 'internalAdapter'> & SessionStore;

export interface SessionDeps {
  authContext: () => Promise<AuthInternals>;
  directory: Directory;
  storage: IdentityStorage;
  revocations: Revocations;
  secret: string;
  sessionTtlSeconds: number;
  /** Deletes the user's OAuth refresh tokens and pending device codes (their access tokens are cut off by the revocation below). */
  endOAuthGrants(userId: string): Promise<number>;
}

export function createSessions(deps: SessionDeps) {
  const unauthenticated = () => new IdentityError('unauthenticated', 'no valid session');

  return {
    async validate(cookieValue: string): Promise<SessionPrincipal> {
      const token = tokenFromCookieValue(cookieValue, deps.secret);
      if (!token) throw unauthenticated();
      const ctx = await deps.authContext();
      const found = await ctx.internalAdapter.findSession(token);
      if (!found || new Date(found.session.expiresAt).getTime() <= Date.now()) throw unauthenticated();
      // The user row is the authority on tenant, role and whether the account is still active.
      const user = await deps.directory.findUserById(found.session.userId);
      if (!user || !user.active || !isRole(user.role)) throw unauthenticated();
      return {
        userId: user.id,
        tenantId: user.tenantId,
        role: user.role,
        sessionId: found.session.id,
        scopes: [...SESSION_SCOPES[user.role]],
        expiresAt: new Date(found.session.expiresAt),
      };
    },

    /** Ends every session and OAuth grant of a user: storage first, then the gateway's cache. */
    async endUserSessions(userId: string): Promise<number> {
      const ctx = await deps.authContext();
      // Counted from Postgres: Redis may have forgotten some (rows.ts); deleteUserSessions ends them all.
      const before = await liveSessionRows(ctx, userId);
      // Anything cached for this user from before now reads as absent, even if a concurrent write
      // puts a session back into Redis after the deletion below.
      await deps.storage.markUserSessionsRevoked(userId, Date.now() + 1, deps.sessionTtlSeconds);
      await ctx.internalAdapter.deleteUserSessions(userId);
      await deps.endOAuthGrants(userId);
      await deps.revocations.publish({ userId });
      return before.length;
    },

    /** The user's sessions may be cached with an old role: the gateway re-validates them. */
    async forgetUser(userId: string): Promise<void> {
      await deps.revocations.publish({ userId });
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
