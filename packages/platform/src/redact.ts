// What telemetry may say about a URL. Query strings carry magic-link tokens, OAuth codes and tRPC
// `input=` (patient names, NIKs), so their values never reach a span or a log; path segments that
// look like identifiers become `{id}`, so that a route label stays a bounded set and a NIK in a REST
// path does not end up in a span name.

const REDACTED = '[redacted]';

/** `a=1&b=2` (with or without `?`) -> `?a=[redacted]&b=[redacted]`; keys stay, values never do. */
export function redactQuery(query: string): string {
  const raw = query.startsWith('?') ? query.slice(1) : query;
  if (raw === '') return '';
  const keys = raw
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const key = pair.split('=')[0] ?? '';
      // A key itself could be data (`?3171...=`): keep only short, word-like keys.
      return /^[\w.[\]-]{1,32}$/.test(key) ? `${key}=${REDACTED}` : REDACTED;
    });
  return `?${keys.join('&')}`;
}

const ID_SEGMENT = /^(?:\d{3,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=.*\d)[A-Za-z0-9_-]{16,}|.*@.*)$/i;

/** `/api/v1/pasien/3171...` -> `/api/v1/pasien/{id}`; tRPC paths (`/trpc/pasien.list`) are kept. */
export function normalizePath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment !== '' && ID_SEGMENT.test(segment) ? '{id}' : segment))
    .join('/');
}

/** A path or absolute URL with identifier segments normalised and query values redacted. */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const noHash = hash >= 0 ? url.slice(0, hash) : url;
  const q = noHash.indexOf('?');
  const base = q >= 0 ? noHash.slice(0, q) : noHash;
  const query = q >= 0 ? redactQuery(noHash.slice(q)) : '';
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(base)?.[0] ?? '';
  return origin + normalizePath(base.slice(origin.length)) + query;
}

/** Values that must never leave a process in telemetry, whatever attribute carries them. */
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/gi;
const LONG_DIGITS = /\d{12,}/g;

/** Last line of defence for free text in span attributes: e-mail addresses and NIK-like digit runs. */
export function redactText(text: string): string {
  return text.replace(EMAIL, '[email]').replace(LONG_DIGITS, '[digits]');
}
