// Request bodies are read whole, within a size and a time limit, before any upstream connection is
// taken: bodies over the size limit answer 413, bodies that do not arrive in time 408, and JSON nested
// deeper than any upstream accepts (in the body or in tRPC's `input` query parameter) 400, here once
// for every upstream.
import type { IncomingMessage } from 'node:http';
import { jsonTooDeep, MAX_JSON_DEPTH } from '@simrs/platform/json-depth';

export class PayloadTooLarge extends Error {}
export class BodyTimeout extends Error {}

/**
 * Reads a whole request body (chunked or not) before any upstream connection is taken, so that a
 * client trickling its body holds only its own socket, never one of the pool's connections.
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    const timer = setTimeout(() => fail(new BodyTimeout(`request body not received within ${timeoutMs} ms`)), timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      req.off('data', onData);
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) return fail(new PayloadTooLarge(`request body over ${maxBytes} bytes`));
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.once('error', fail);
  });
}

/**
 * Reads and drops what is left of a refused body, until it ends, `maxBytes` more have come or
 * `timeoutMs` have passed, so that the connection can close without a reset.
 */
export function discardBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<void> {
  if (req.readableEnded || req.destroyed || Number(req.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) done();
    };
    const timer = setTimeout(done, timeoutMs);
    req.on('data', onData);
    req.once('end', done);
    req.once('error', done);
    req.once('close', done);
    req.resume();
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
