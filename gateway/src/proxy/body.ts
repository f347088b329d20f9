// Request bodies are read whole, within a size and a time limit, before any upstream connection is
// taken: bodies over the size limit answer 413, bodies that do not arrive in time 408, and JSON nested
// deeper than any upstream accepts (in the body or in tRPC's `input` query parameter) 400, here once
// for every upstream.
import type { IncomingMessage } from 'node:http';
import { jsonTooDeep, MAX_JSON_DEPTH } from '@simrs/platform/json-depth';

export class PayloadTooLarge extends Error {}
export class BodyTimeout extends Error {}

/** How many times the size limit a refused body may still send before its answer. */
const DRAIN_FACTOR = 4;

/**
 * Reads a whole request body (chunked or not) before any upstream connection is taken, so that a
 * client trickling its body holds only its own socket, never one of the pool's connections. A body
 * over `maxBytes` (declared or counted) is refused only once the client has sent the rest of it,
 * read and dropped, within the time limit and a few times the size limit: a socket closed with
 * unread bytes is reset, and the reset can take the answer with it before the client reads it. A body
 * beyond those bounds is refused at once.
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  const refusal = () => new PayloadTooLarge(`request body over ${maxBytes} bytes`);
  if (declared > maxBytes * DRAIN_FACTOR) return Promise.reject(refusal());
  if (req.destroyed) return Promise.reject(new Error('the request closed before its body ended'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    let tooLarge = declared > maxBytes;
    const settle = (err?: Error) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(
      () => settle(tooLarge ? refusal() : new BodyTimeout(`request body not received within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes * DRAIN_FACTOR) return settle(refusal());
      if (seen > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
      }
      if (!tooLarge) chunks.push(chunk);
    };
    const onEnd = () => settle(tooLarge ? refusal() : undefined);
    // A client gone before the end: nobody to answer (the proxy destroys the response).
    const onClose = () => settle(new Error('the request closed before its body ended'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', settle);
    req.once('close', onClose);
  });
}

/** Bodies read as JSON upstream: declared JSON, or undeclared (tRPC clients may omit the type). */
function readAsJson(req: IncomingMessage): boolean {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  return type === '' || type.includes('json') || type.startsWith('text/plain');
}

/** Where the request carries JSON nested deeper than the bound: 'body', 'query', or undefined. */
export function tooDeep(req: IncomingMessage, body: Buffer | null): 'body' | 'query' | undefined {
  if (body && body.length > 0 && readAsJson(req) && jsonTooDeep(body)) return 'body';
  const query = (req.url ?? '').split('?')[1];
  // Nesting deeper than the bound takes more opening brackets than that, each at least one character
  // of the query (decoding only shortens it): a query as short as most never needs parsing.
  if (query === undefined || query.length <= MAX_JSON_DEPTH || !query.includes('input=')) return undefined;
  for (const value of new URLSearchParams(query).getAll('input')) if (jsonTooDeep(value)) return 'query';
  return undefined;
}
