// Every error answer the gateway writes itself goes through sendError, in the seed's envelope (the
// shape records' procedures answer in), so that a caller sees one error shape whoever answered; under
// the FHIR base (<integration prefix>/fhir) the same error as an OperationOutcome, as records answers there.
import type { NextFunction, Request, Response } from 'express';
import { envelope, fhirOutcome, HTTP_STATUS, isFhirPath } from '@simrs/contracts/envelope';
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
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (isFhirPath(res.req.originalUrl.split('?')[0] ?? '', config.INTEGRATION_PREFIX)) {
    res
      .status(HTTP_STATUS[code])
      .type('application/fhir+json')
      .send(JSON.stringify(fhirOutcome(code, message)));
    return;
  }
  const body = envelope(code, message, envelopePath(res.req));
  res.status(body.error.data.httpStatus).json(body);
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
