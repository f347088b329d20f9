// The two documented error shapes (docs/api.md, "Errors"): the API's envelope everywhere, and
// RFC 6749's {error, error_description} on the OAuth endpoints (and identity's HTML pages, which refuse
// in a page). Tests assert every answer is one of them.
import assert from 'node:assert/strict';

const STACK = /at .*\.(ts|js|mjs):\d+/;

export function assertEnvelope(body: unknown, status: number, what: string): void {
  const error = (body as { error?: { message?: unknown; code?: unknown; data?: { code?: unknown; httpStatus?: unknown; path?: unknown } } })
    ?.error;
  assert.ok(error && typeof error === 'object', `${what}: an envelope, got ${JSON.stringify(body)?.slice(0, 300)}`);
  assert.equal(typeof error.message, 'string', `${what}: error.message`);
  assert.equal(typeof error.code, 'number', `${what}: error.code`);
  assert.equal(typeof error.data?.code, 'string', `${what}: error.data.code`);
  assert.equal(error.data?.httpStatus, status, `${what}: error.data.httpStatus`);
  assert.equal(typeof error.data?.path, 'string', `${what}: error.data.path`);
  assert.doesNotMatch(JSON.stringify(body), STACK, `${what}: no stack trace`);
}

export function assertOAuthError(body: unknown, what: string): void {
  const b = body as { error?: unknown; error_description?: unknown };
  assert.equal(typeof b?.error, 'string', `${what}: {error, error_description}, got ${JSON.stringify(body)?.slice(0, 300)}`);
  assert.match(b.error as string, /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/, `${what}: error is an RFC 6749 code`);
  if (b.error_description !== undefined) assert.equal(typeof b.error_description, 'string', `${what}: error_description`);
  assert.doesNotMatch(JSON.stringify(body), STACK, `${what}: no stack trace`);
}

/** OAuth endpoints answer RFC 6749's shape; everything else the envelope. */
export const isOAuthPath = (path: string) =>
  /^\/api\/auth\/(oauth2|device)(\/|$)/.test(path) || path.startsWith('/.well-known/') || path.startsWith('/api/auth/.well-known/');

/** Reads an error answer and checks it is in the shape documented for its path. */
export async function assertDocumentedError(res: Response, path: string, what: string): Promise<void> {
  assert.ok(res.status >= 400 && res.status < 500, `${what}: a 4xx, got ${res.status}`);
  // identity's pages refuse in a page of their own (a device code that is not valid), for the person reading it.
  if (/^\/auth\/./.test(path) && /text\/html/.test(res.headers.get('content-type') ?? '')) return;
  assert.match(res.headers.get('content-type') ?? '', /application\/json/, `${what}: JSON`);
  const body = (await res.json()) as unknown;
  if (isOAuthPath(path)) assertOAuthError(body, what);
  // A tRPC batch answers one envelope per call.
  else if (Array.isArray(body) && body.length > 0)
    for (const item of body as unknown[])
      assertEnvelope(item, (item as { error: { data: { httpStatus: number } } }).error.data.httpStatus, what);
  else assertEnvelope(body, res.status, what);
}
