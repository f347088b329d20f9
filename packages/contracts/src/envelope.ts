// The seed's error envelope, used by every HTTP surface that is not tRPC itself (the gateway's own
// answers, the integration prefix) so that a caller sees one error shape whoever answered. The one
// exception is FHIR (<integration prefix>/fhir), whose clients expect an OperationOutcome: records
// writes its own, and the gateway answers its refusals there in that shape too (fhirOutcome).
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

export type ErrorCode = TRPC_ERROR_CODE_KEY;

export const HTTP_STATUS: Record<ErrorCode, number> = {
  PARSE_ERROR: 400,
  BAD_REQUEST: 400,
  INTERNAL_SERVER_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  TIMEOUT: 408,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  PRECONDITION_REQUIRED: 428,
  TOO_MANY_REQUESTS: 429,
  CLIENT_CLOSED_REQUEST: 499,
};

export interface ErrorEnvelope {
  error: {
    message: string;
    code: number;
    data: { code: ErrorCode; httpStatus: number; path: string };
  };
}

export function envelope(code: ErrorCode, message: string, path: string): ErrorEnvelope {
  return {
    error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus: HTTP_STATUS[code], path } },
  };
}

/** Where FHIR lives below the integration prefix: error answers there are OperationOutcomes. */
export const isFhirPath = (path: string, integrationPrefix: string) =>
  path === `${integrationPrefix}/fhir` || path.startsWith(`${integrationPrefix}/fhir/`);

const FHIR_ISSUE: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'invalid',
  PARSE_ERROR: 'structure',
  UNAUTHORIZED: 'login',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not-found',
  TIMEOUT: 'timeout',
  PAYLOAD_TOO_LARGE: 'too-long',
  TOO_MANY_REQUESTS: 'throttled',
  SERVICE_UNAVAILABLE: 'transient',
};

/** The error as a FHIR OperationOutcome (the status is HTTP_STATUS[code]). */
export function fhirOutcome(
  code: ErrorCode,
  message: string,
): { resourceType: 'OperationOutcome'; issue: { severity: string; code: string; diagnostics: string }[] } {
  const server = HTTP_STATUS[code] >= 500;
  return {
    resourceType: 'OperationOutcome',
    issue: [
      { severity: server ? 'fatal' : 'error', code: FHIR_ISSUE[code] ?? (server ? 'exception' : 'processing'), diagnostics: message },
    ],
  };
}

/**
 * The OAuth 2.0 / OIDC endpoints (the provider under /api/auth/oauth2 and /api/auth/device, and the
 * discovery documents): their errors are RFC 6749's `{error, error_description}`, which OAuth clients
 * read. Every other path answers the envelope above.
 */
export function isOAuthPath(path: string): boolean {
  return /^\/api\/auth\/(oauth2|device)(\/|$)/.test(path) || path.startsWith('/.well-known/') || path.startsWith('/api/auth/.well-known/');
}

export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

/** RFC 6749 §5.2's error code for an answer of `code`'s status. */
export function oauthError(code: ErrorCode, message: string): OAuthErrorBody {
  const status = HTTP_STATUS[code];
  const error =
    status === 401
      ? 'invalid_client'
      : status === 503 || status === 429
        ? 'temporarily_unavailable'
        : status >= 500
          ? 'server_error'
          : 'invalid_request';
  return { error, error_description: message };
}

/** The error body documented for `path`: RFC 6749's on the OAuth endpoints, the envelope elsewhere. */
export function errorBodyFor(code: ErrorCode, message: string, path: string): ErrorEnvelope | OAuthErrorBody {
  return isOAuthPath(path) ? oauthError(code, message) : envelope(code, message, path);
}

/** The envelope's code name for an HTTP status (the first code that stands for it). */
export function codeForStatus(status: number): ErrorCode {
  if (status === 400) return 'BAD_REQUEST'; // PARSE_ERROR is a 400 too, but only for JSON that does not parse
  const found = (Object.keys(HTTP_STATUS) as ErrorCode[]).find((c) => HTTP_STATUS[c] === status);
  if (found) return found;
  return status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST';
}
