// What the OAuth provider's options (provider.ts) and SIMRS's hooks on its endpoints (hooks.ts) share:
// the keyed hash under which tokens are stored, reading bearer tokens and JWT payloads, OAuth errors,
// and the hand-over of state from a before hook to the code that runs after it.
import { createHash } from 'node:crypto';
import { APIError } from 'better-auth/api';
import { hmac } from '../keys/index.ts';
import type { Keys } from '../keys/index.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** Keyed hash under which authorization codes, refresh tokens and device codes are stored. */
export const hashOAuthToken = (keys: Keys, token: string, type: string) => hmac(keys.oauthToken, `${type}:${token}`);

/**
 * How client secrets are stored: exactly Better Auth's default ("hashed": SHA-256, base64url without
 * padding), so that secrets stored before stay valid, but computed with node:crypto at once instead of
 * through WebCrypto's job queue (about 2.5 µs against 90 µs here; a token request checks the secret
 * twice: SIMRS's client authentication, then Better Auth's).
 */
export const hashClientSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('base64url');

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A bounded, short-lived map that hands state from a before hook to the code that runs after it. */
export class Handover<T> {
  private readonly entries = new Map<string, { value: T; at: number }>();
  set(key: string, value: T): void {
    if (this.entries.size > 10_000) this.sweep();
    this.entries.set(key, { value, at: Date.now() });
  }
  get(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }
  take(key: string): T | undefined {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry?.value;
  }
  private sweep(): void {
    const cutoff = Date.now() - 60_000;
    for (const [key, entry] of this.entries) if (entry.at < cutoff) this.entries.delete(key);
  }
}

/** What the endpoint answered, when it answered a JSON object (not an error). */
export const returnedError = (ctx: { context: { returned?: unknown } }) => {
  const returned = ctx.context.returned;
  return returned instanceof Error || !isPlainObject(returned) ? undefined : returned;
};

/** The token of an Authorization header with one of `schemes` (case-insensitive, RFC 7235). */
export function bearer(headers: Headers | undefined, schemes: readonly string[] = ['Bearer']): string | undefined {
  const value = headers?.get('authorization');
  const match = value ? /^(\S+) +(\S+)$/.exec(value) : null;
  return match && schemes.some((s) => s.toLowerCase() === match[1]!.toLowerCase()) ? match[2] : undefined;
}

export const oauthError = (
  status: 'BAD_REQUEST' | 'UNAUTHORIZED' | 'FORBIDDEN',
  error: string,
  description: string,
  headers?: Record<string, string>,
) => new APIError(status, { error, error_description: description }, headers);

/** The payload of a compact JWS, unverified (the caller has verified it or only reads ids from it). */
export function decodePayload(token: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
