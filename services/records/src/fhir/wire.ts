// FHIR on the wire: JSON only (`application/fhir+json`), the `_format` and `_pretty` parameters and
// the Accept header, request bodies (size-limited, JSON content types only), absolute URLs of the FHIR
// base, and the success answers with their versioning headers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from '../server/index.ts';
import { FHIR_JSON, FhirError } from './outcome.ts';

const JSON_FORMATS = new Set(['json', 'application/json', 'application/fhir+json', 'application/json+fhir']);

/** Whether the answer is indented; throws 406 for a format other than JSON. */
export function negotiate(req: IncomingMessage, query: URLSearchParams): { pretty: boolean } {
  const format = query.get('_format');
  if (format !== null && !JSON_FORMATS.has(format.split(';')[0]!.trim().toLowerCase())) {
    throw new FhirError(406, 'not-supported', `_format ${format} is not supported: this server speaks application/fhir+json only`);
  }
  const accept = String(req.headers.accept ?? '').toLowerCase();
  if (format === null && accept !== '') {
    const types = accept.split(',').map((t) => t.split(';')[0]!.trim());
    const ok = types.some((t) => t === '*/*' || t === 'application/*' || JSON_FORMATS.has(t));
    if (!ok) throw new FhirError(406, 'not-supported', 'Accept names no format this server speaks: use application/fhir+json');
  }
  return { pretty: query.get('_pretty') === 'true' };
}

/** A request body with its media type (lower case, no parameters), or a FHIR 413 when it is too large. */
async function readTyped(req: IncomingMessage, maxBytes: number): Promise<{ type: string; raw: string }> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  let raw: string;
  try {
    raw = await readBody(req, maxBytes);
  } catch (err) {
    if (err instanceof BodyTooLarge)
      throw new FhirError(413, 'too-long', `request body is larger than ${maxBytes} bytes`, { headers: { connection: 'close' } });
    throw err;
  }
  return { type, raw };
}

/** The body of a create or update: a JSON object, or a FHIR error (413, 415, 400). */
export async function readResource(req: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const { type, raw } = await readTyped(req, maxBytes);
  if (!['application/fhir+json', 'application/json', 'application/json+fhir'].includes(type)) {
    throw new FhirError(415, 'not-supported', 'send the resource as application/fhir+json');
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new FhirError(400, 'structure', 'request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new FhirError(400, 'structure', 'request body must be a JSON object (a FHIR resource)');
  return body as Record<string, unknown>;
}

/** A form-encoded search body (`POST Patient/_search`). */
export async function readForm(req: IncomingMessage, maxBytes: number): Promise<URLSearchParams> {
  const { type, raw } = await readTyped(req, maxBytes);
  if (raw.trim() !== '' && type !== 'application/x-www-form-urlencoded') {
    throw new FhirError(415, 'not-supported', 'send search parameters as application/x-www-form-urlencoded');
  }
  return new URLSearchParams(raw);
}

/**
 * The FHIR base URL the caller used: `PUBLIC_URL`'s origin when records is told it, otherwise the
 * scheme and host the gateway forwarded (`x-forwarded-proto`, `x-forwarded-host`), then the prefix.
 */
export function baseUrlOf(req: IncomingMessage, publicUrl: string | undefined, prefix: string): string {
  if (publicUrl) return `${new URL(publicUrl).origin}${prefix}/fhir`;
  const first = (h: string | string[] | undefined) =>
    String(Array.isArray(h) ? h[0] : (h ?? ''))
      .split(',')[0]!
      .trim();
  const proto = first(req.headers['x-forwarded-proto']) === 'https' ? 'https' : 'http';
  const host = first(req.headers['x-forwarded-host']) || first(req.headers.host) || 'localhost';
  return `${proto}://${/^[\w.-]+(:\d+)?$|^\[[\d:a-f]+\](:\d+)?$/i.test(host) ? host : 'localhost'}${prefix}/fhir`;
}

export const etagOf = (version: number) => `W/"${version}"`;

/** `W/"3"`, `"3"` or `3` -> 3; anything else is a 400. */
export function versionFromIfMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(String(header));
  if (!m) throw new FhirError(400, 'invalid', 'If-Match must be an ETag such as W/"3"');
  return Number(m[1]);
}

/** Answers a resource (or Bundle) with FHIR's content type; patient data is never cached. */
export function sendResource(
  res: ServerResponse,
  status: number,
  body: unknown,
  pretty: boolean,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': FHIR_JSON, 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify(body, null, pretty ? 2 : undefined));
}

/** ETag, Last-Modified (and Location when given) for a resource version. */
export function versionHeaders(version: number, updatedAt: string, location?: string): Record<string, string> {
  return { etag: etagOf(version), 'last-modified': new Date(updatedAt).toUTCString(), ...(location ? { location } : {}) };
}
