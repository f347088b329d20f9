// Where a person goes once signed in (`?next=`, `?callbackURL=`): a path of this site, never another
// origin. The dashboard and identity both take return addresses from the address bar, so they share
// this one check: two copies would drift, and each copy so far had the same hole ("/.//evil.example"
// passes an origin comparison, then its path "//evil.example" is a link to another host).
// No Node-only APIs: the dashboard bundles this file.

/**
 * Refused anywhere in a return address: control characters (a browser drops tabs and newlines from a URL,
 * so "jav\tascript:" is "javascript:"), JavaScript's line separators, and backslashes (read as "/").
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]/;
/** A path a browser reads as a scheme-relative URL, that is another host: "//host" or "/\host". */
const OTHER_HOST = /^\/[/\\]/;
const ABSOLUTE_HTTP = /^https?:\/\//i;
/** Encodings peeled before giving up: "%252F" is "%2F" to a second decoder (Better Auth decodes again). */
const MAX_DECODES = 4;

/**
 * Whether `pathname` stays a path of `site` however often it is decoded and its dot segments resolved:
 * "/%2F%2Fx" decodes to "///x", "/.%2F/x" to "/.//x", which resolves to "//x".
 */
function staysOnSite(pathname: string, site: string): boolean {
  let current = pathname;
  for (let i = 0; i <= MAX_DECODES; i++) {
    if (OTHER_HOST.test(current) || UNSAFE_CHARACTERS.test(current)) return false;
    let resolved: URL;
    let decoded: string;
    try {
      resolved = new URL(current, site);
      decoded = decodeURIComponent(current);
    } catch {
      return false;
    }
    if (resolved.origin !== site || OTHER_HOST.test(resolved.pathname)) return false;
    if (decoded === current) return true;
    current = decoded;
  }
  return false;
}

/**
 * A path of `origin` (path, query and fragment) to go to, from a return address a caller gave: a path
 * starting with one "/", or an absolute http(s) URL of `origin` itself (reduced to its path). Anything
 * else (another origin, a scheme-relative or backslashed path, an encoded one that decodes to such,
 * `javascript:` or `data:`, control characters, a relative path) gives `fallback`. The result starts with
 * a single "/" not followed by "/" or "\", so no browser or router can read it as another origin.
 */
export function safeReturnPath<F extends string | null = string>(
  value: string | null | undefined,
  origin: string,
  fallback: F = '/' as F,
): string | F {
  if (typeof value !== 'string' || UNSAFE_CHARACTERS.test(value)) return fallback;
  if (!value.startsWith('/') && !ABSOLUTE_HTTP.test(value)) return fallback;
  let site: string;
  let url: URL;
  try {
    site = new URL(origin).origin;
    url = new URL(value, site);
  } catch {
    return fallback;
  }
  if (url.origin !== site || url.username || url.password) return fallback;
  const path = url.pathname + url.search + url.hash;
  return staysOnSite(url.pathname, site) && !OTHER_HOST.test(path) ? path : fallback;
}
