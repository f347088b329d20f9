// The URIs in a client's registration metadata (RFC 7591 §2): pages a consent screen or a dashboard may
// link to, a logo it may load, a key set identity may fetch. A `javascript:` or `data:` one would run in
// the page of whoever follows it, and plain http can be changed on the way; so every one is https. Redirect
// URIs also allow http on a loopback host (RFC 8252 §7.3: a native app's own listener) and a native
// app's private-use scheme (§7.1, a reverse domain name; Better Auth then checks its form).
import { isPlainObject, oauthError } from './tokens.ts';

/** Fields holding redirect URIs, and the RFC 7591 §3.2.2 error for a bad one. */
const REDIRECT_FIELDS: Record<string, string> = {
  redirect_uris: 'invalid_redirect_uri',
  post_logout_redirect_uris: 'invalid_client_metadata',
};
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Whitespace and control characters: a browser drops some of them, so "java\tscript:" is "javascript:". */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_CHARACTERS = /[\s\u0000-\u001f\u007f-\u009f]/;
/** A private-use scheme as RFC 8252 §7.1 names them: a reverse domain name, so at least one dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:/i;

function parse(value: string): URL | undefined {
  if (UNSAFE_CHARACTERS.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.username || url.password ? undefined : url;
  } catch {
    return undefined;
  }
}

const isHttps = (value: string) => /^https:\/\//i.test(value) && parse(value)?.protocol === 'https:';

function isRedirectUri(value: string): boolean {
  if (isHttps(value)) return true;
  const url = parse(value);
  if (!url) return false;
  if (url.protocol === 'http:') return /^http:\/\//i.test(value) && LOOPBACK_HOSTS.has(url.hostname);
  return PRIVATE_USE_SCHEME.test(value);
}

/**
 * Refuses, in RFC 7591's error shape naming the field, a registration whose `*_uri` metadata is not an
 * https URL or whose redirect URIs (`*_uris`) are neither that, loopback http nor a private-use scheme.
 * Every field named so is checked, those Better Auth ignores too (`initiate_login_uri`).
 */
export function refuseUnsafeClientUris(body: unknown): void {
  if (!isPlainObject(body)) return;
  for (const [field, value] of Object.entries(body)) {
    if (field.endsWith('_uri') && (typeof value !== 'string' || !isHttps(value)))
      throw oauthError('BAD_REQUEST', 'invalid_client_metadata', `${field} must be an https URL`);
    if (!field.endsWith('_uris')) continue;
    const redirect = Object.hasOwn(REDIRECT_FIELDS, field);
    const error = redirect ? REDIRECT_FIELDS[field]! : 'invalid_client_metadata';
    const allowed = redirect ? isRedirectUri : isHttps;
    if (!Array.isArray(value) || !value.every((uri) => typeof uri === 'string' && allowed(uri)))
      throw oauthError(
        'BAD_REQUEST',
        error,
        redirect
          ? `${field} must be https URLs (http only on a loopback host, or a native app's private-use scheme)`
          : `${field} must be https URLs`,
      );
  }
}
