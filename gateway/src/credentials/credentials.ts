// Who is calling /trpc/* or the integration prefix. Two credentials exist (seed §5): a bearer access
// token, or the session cookie — and the cookie counts only for a request from an allow-listed origin
// (CORS alone does not stop a cross-site GET from arriving with cookies).
import type { Request } from 'express';
import { allowedOrigins, publicOrigin, sessionCookieName } from '../config.ts';
import type { BearerAuthenticator } from './bearer.ts';
import type { VerifiedCredential } from './cache.ts';
import type { SessionAuthenticator } from './session.ts';

/** The value of one cookie from a Cookie header, without parsing every other cookie. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * The origin a request came from for the cookie rule. Browsers omit Origin on same-origin GETs; they
 * then send `Sec-Fetch-Site: same-origin`, a header page scripts cannot set, which stands for our own
 * public origin. Anything else without an Origin (old browsers, curl) has no origin at all.
 */
export function requestOrigin(req: Request): string | undefined {
  const origin = req.headers.origin;
  if (origin) return origin;
  return req.headers['sec-fetch-site'] === 'same-origin' ? publicOrigin : undefined;
}

export class MalformedAuthorization extends Error {}
/** A cookie from an allowed origin that identity does not know: the call goes on anonymously. */
export class UnknownSession extends Error {}

/** `Authorization: Bearer <token>` (or DPoP): the scheme and the token. */
const AUTHORIZATION = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The caller of an API request as far as memory alone can tell, by the rules of resolveCaller: a
 * credential verified before (a plain bearer token, or a session cookie under the origin rule), or
 * null for a request that names no credential resolveCaller would check (no session cookie, or one
 * from an origin that is not allowed). Undefined when resolveCaller has work to do: verify, ask
 * identity, check a DPoP proof or refuse.
 */
export function callerFromMemory(
  req: Request,
  auth: { sessions: SessionAuthenticator; bearer: BearerAuthenticator },
): VerifiedCredential | null | undefined {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const match = AUTHORIZATION.exec(authorization);
    if (!match || match[1]!.toLowerCase() !== 'bearer' || req.headers.dpop !== undefined) return undefined;
    return auth.bearer.fromMemory(match[2]!);
  }
  const cookie = readCookie(req.headers.cookie, sessionCookieName);
  if (!cookie) return null;
  const origin = requestOrigin(req);
  if (!origin || !allowedOrigins.has(origin)) return null;
  return auth.sessions.fromMemory(cookie);
}

/**
 * The caller of an API request: from a bearer token when there is an Authorization header (a bad
 * token throws InvalidToken: it is refused, not ignored), else from the session cookie under the
 * origin rule, else nobody.
 */
export async function resolveCaller(
  req: Request,
  auth: { sessions: SessionAuthenticator; bearer: BearerAuthenticator },
): Promise<VerifiedCredential | undefined> {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    // The scheme name is case-insensitive (RFC 7235); DPoP-bound tokens come with the DPoP scheme (RFC 9449 §7.1).
    const match = AUTHORIZATION.exec(authorization);
    if (!match) throw new MalformedAuthorization('expected "Authorization: Bearer <access token>" (or DPoP)');
    const proof = req.headers.dpop;
    return auth.bearer.principal({
      scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer',
      token: match[2]!,
      ...(typeof proof === 'string' ? { proof } : {}),
      method: req.method,
      url: `${publicOrigin}${req.originalUrl}`,
    });
  }
  return sessionCaller(req, auth.sessions);
}

async function sessionCaller(req: Request, sessions: SessionAuthenticator): Promise<VerifiedCredential | undefined> {
  const cookie = readCookie(req.headers.cookie, sessionCookieName);
  if (!cookie) return undefined;
  const origin = requestOrigin(req);
  if (!origin || !allowedOrigins.has(origin)) return undefined;
  const caller = await sessions.principal(cookie);
  if (!caller) throw new UnknownSession('session unknown, expired or revoked');
  return caller;
}
