// Request bodies are read whole, within a size and a time limit, before any upstream connection is
// taken: bodies over the size limit answer 413, bodies that do not arrive in time 408.
import type { IncomingMessage } from 'node:http';

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
