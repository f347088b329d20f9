// Who is calling /trpc/* or the integration prefix. Two credentials exist (seed §5): a bearer access
// token, or the session cookie — and the cookie counts only for a request from an allow-listed origin
// (CORS alone does not stop a cross-site GET from arriving with cookies).
import type { Request } from 'express';
import type { Principal } from '@simrs/platform/principal';
import { allowedOrigins, publicOrigin, sessionCookieName } from './config.ts';
import type { SessionAuthenticator } from './auth/session.ts';

export interface Caller {
  /** Hash of the credential: the key of the principal cache. */
  key: string;
  principal: Principal;
}

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

export async function sessionCaller(req: Request, sessions: SessionAuthenticator): Promise<Caller | undefined> {
  const cookie = readCookie(req.headers.cookie, sessionCookieName);
  if (!cookie) return undefined;
  const origin = requestOrigin(req);
  if (!origin || !allowedOrigins.has(origin)) return undefined;
  return sessions.principal(cookie);
}
