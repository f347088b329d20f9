// Request bodies read whole, with a size limit (413 above it): the REST surface and the FHIR surface.
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {}

/** Reads the whole body, refusing more than `max` bytes. */
export function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
