// Every error answer the gateway writes itself goes through sendError, in the shape documented for the
// path: the seed's envelope (the shape records' procedures answer in); RFC 6749's {error,
// error_description} on the OAuth endpoints; an OperationOutcome under the FHIR base (<integration
// prefix>/fhir), as records answers there. So a caller sees one shape whoever answered.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { envelope, fhirOutcome, HTTP_STATUS, isFhirPath, isOAuthPath, oauthError } from '@simrs/contracts/envelope';
import type { ErrorCode } from '@simrs/contracts/envelope';
import { config } from '../config.ts';
import { decodePath, procedureOf } from '../routes/index.ts';
import { markAnsweredByGateway } from './context.ts';
import { log } from './log.ts';

/**
 * Answers `code` with its HTTP status, the envelope and any extra headers (Retry-After,
 * WWW-Authenticate, Connection). Once a response has started, the connection is cut instead.
 */
export function sendError(res: Response, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.destroy();
  markAnsweredByGateway(res);
  // Every 503 says when to come back, whichever part of the gateway found the dependency away.
  if (code === 'SERVICE_UNAVAILABLE' && !Object.keys(headers).some((h) => h.toLowerCase() === 'retry-after'))
    res.setHeader('retry-after', '1');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const path = res.req.originalUrl.split('?')[0] ?? '';
  if (isFhirPath(path, config.INTEGRATION_PREFIX)) {
    res
      .status(HTTP_STATUS[code])
      .type('application/fhir+json')
      .send(JSON.stringify(fhirOutcome(code, message)));
    return;
  }
  // The OAuth endpoints answer in RFC 6749's shape, everything else in the envelope (docs/api.md, "Errors").
  res.status(HTTP_STATUS[code]).json(isOAuthPath(path) ? oauthError(code, message) : envelope(code, message, envelopePath(res.req)));
}

/** The envelope's data.path: the tRPC procedure path ("pasien.list") or the request path. */
function envelopePath(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '';
  const procedure = procedureOf(path);
  if (procedure === undefined) return path;
  return decodePath(procedure) ?? procedure; // not valid percent-encoding: shown as sent
}

/** Last middleware. Express 5 hands rejected promises here: the log gets the stack, the caller nothing inside. */
export function answerErrors(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const status = (err as { status?: number }).status;
  if (status && status >= 400 && status < 500) return sendError(res, 'BAD_REQUEST', 'bad request');
  log.error({ err }, 'request failed');
  try {
    sendError(res, 'INTERNAL_SERVER_ERROR', 'internal error');
  } catch {
    res.status(500).end();
  }
}

/**
 * Requests Node's parser refuses before Express sees them (two Content-Length headers, Content-Length
 * with chunked, a method token it does not know, a malformed header): a 400 in the envelope instead
 * of Node's bare "400 Bad Request", then the connection is closed (its framing cannot be trusted).
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
    const message = err.code === 'HPE_HEADER_OVERFLOW' ? 'request headers too large' : 'malformed request';
    // The request line, when the parser got that far, names the path and so the shape.
    const target = (err as { rawPacket?: Buffer }).rawPacket?.toString('latin1').split('\r\n')[0]?.split(' ')[1] ?? '';
    const path = target.startsWith('/') ? (target.split('?')[0] ?? '') : '';
    const body = JSON.stringify(isOAuthPath(path) ? oauthError('BAD_REQUEST', message) : envelope('BAD_REQUEST', message, path));
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
