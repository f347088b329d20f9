// The error envelope on the plain-HTTP and REST surface, written in one place: the answers server.ts
// gives itself (no such route, body too large, bad JSON) and the REST errors of openapi.ts. The tRPC
// surface builds the same envelope in its error formatter (trpc.ts).
import type { ServerResponse } from 'node:http';
import { HTTP_STATUS, envelope } from '@simrs/contracts/envelope';
import type { ErrorCode } from '@simrs/contracts/envelope';

/** The envelope as JSON text, with the per-field messages for bad input when there are any. */
export function errorBody(code: ErrorCode, message: string, path: string, fieldErrors?: Record<string, string[]>): string {
  const body = envelope(code, message, path);
  return JSON.stringify(fieldErrors ? { error: { ...body.error, data: { ...body.error.data, fieldErrors } } } : body);
}

/** Answers the request with the envelope and the status its code stands for. */
export function sendError(res: ServerResponse, code: ErrorCode, message: string, path: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(HTTP_STATUS[code], { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    .end(errorBody(code, message, path));
}
