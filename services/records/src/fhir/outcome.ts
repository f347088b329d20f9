// The one error writer of the FHIR surface: every failure under <prefix>/fhir answers an
// OperationOutcome with the HTTP status FHIR expects (Medplum's fhir/outcomes.ts does the same). Domain
// and database errors arrive as tRPC errors (server/errors.ts maps them once for every surface); this
// file turns them, and the FHIR layer's own refusals, into issue codes. A 5xx never says more than
// "internal error" or "try again"; the log has the rest.
import type { ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { Archived, StaleVersion } from '../pasien/index.ts';
import { FieldErrors, log, toTRPCError } from '../server/index.ts';

/** FHIR's JSON media type, on every answer of this surface. */
export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/** FHIR's IssueType codes used here (http://hl7.org/fhir/issue-type). */
export type IssueCode =
  | 'invalid'
  | 'structure'
  | 'required'
  | 'value'
  | 'not-supported'
  | 'not-found'
  | 'deleted'
  | 'forbidden'
  | 'login'
  | 'conflict'
  | 'duplicate'
  | 'multiple-matches'
  | 'too-long'
  | 'exception'
  | 'transient'
  | 'throttled'
  | 'informational';

export interface Issue {
  severity: 'fatal' | 'error' | 'warning' | 'information';
  code: IssueCode;
  diagnostics: string;
  expression?: string[];
}

/** A refusal the FHIR layer decides itself: its status and issues. */
export class FhirError extends Error {
  readonly status: number;
  readonly issues: Issue[];
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: IssueCode,
    diagnostics: string,
    opts: { expression?: string[]; issues?: Issue[]; headers?: Record<string, string> } = {},
  ) {
    super(diagnostics);
    this.status = status;
    this.issues = opts.issues ?? [{ severity: 'error', code, diagnostics, ...(opts.expression ? { expression: opts.expression } : {}) }];
    this.headers = opts.headers ?? {};
  }
}

export const notFound = (what = 'Patient') => new FhirError(404, 'not-found', `${what} not found`);
export const badRequest = (diagnostics: string, expression?: string[]) =>
  new FhirError(400, 'invalid', diagnostics, expression ? { expression } : {});
export const notSupported = (diagnostics: string, status = 400, expression?: string[]) =>
  new FhirError(status, 'not-supported', diagnostics, expression ? { expression } : {});

export function operationOutcome(issues: Issue[]): Record<string, unknown> {
  return { resourceType: 'OperationOutcome', issue: issues };
}

/** A record field's FHIR path, for the expression of an issue about it. */
export type FieldPaths = Record<string, string>;

const TRPC_TO_FHIR: Record<string, { status: number; code: IssueCode }> = {
  BAD_REQUEST: { status: 400, code: 'invalid' },
  PARSE_ERROR: { status: 400, code: 'structure' },
  UNAUTHORIZED: { status: 401, code: 'login' },
  FORBIDDEN: { status: 403, code: 'forbidden' },
  NOT_FOUND: { status: 404, code: 'not-found' },
  CONFLICT: { status: 409, code: 'conflict' },
  PRECONDITION_FAILED: { status: 412, code: 'conflict' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'too-long' },
  SERVICE_UNAVAILABLE: { status: 503, code: 'transient' },
};

/** Any error as status, issues and headers. */
export function outcomeOf(err: unknown, fieldPaths: FieldPaths = {}): { status: number; issues: Issue[]; headers: Record<string, string> } {
  if (err instanceof FhirError) return { status: err.status, issues: err.issues, headers: err.headers };
  const e = toTRPCError(err);
  if (e.cause instanceof StaleVersion)
    return { status: 412, issues: [{ severity: 'error', code: 'conflict', diagnostics: e.message }], headers: {} };
  if (e.cause instanceof Archived)
    return { status: 410, issues: [{ severity: 'error', code: 'deleted', diagnostics: 'Patient is deleted (archived)' }], headers: {} };
  const mapped = TRPC_TO_FHIR[e.code];
  if (!mapped || mapped.status >= 500) {
    if (mapped?.status === 503)
      return {
        status: 503,
        issues: [{ severity: 'error', code: 'transient', diagnostics: 'service unavailable, try again shortly' }],
        headers: { 'retry-after': '1' },
      };
    return { status: 500, issues: [{ severity: 'fatal', code: 'exception', diagnostics: 'internal error' }], headers: {} };
  }
  if (e.cause instanceof FieldErrors) {
    const code: IssueCode = e.code === 'CONFLICT' ? 'duplicate' : mapped.code;
    const issues = Object.entries(e.cause.fieldErrors).flatMap(([field, messages]) =>
      messages.map((m): Issue => ({
        severity: 'error',
        code,
        diagnostics: m,
        ...(fieldPaths[field] ? { expression: [fieldPaths[field]!] } : {}),
      })),
    );
    if (issues.length) return { status: mapped.status, issues, headers: {} };
  }
  return { status: mapped.status, issues: [{ severity: 'error', code: mapped.code, diagnostics: e.message }], headers: {} };
}

/** Answers with an OperationOutcome; 5xx are logged here (with the cause), never told. */
export function sendOutcome(res: ServerResponse, err: unknown, fieldPaths: FieldPaths = {}, pretty = false): void {
  const { status, issues, headers } = outcomeOf(err, fieldPaths);
  if (status >= 500) {
    const cause = err instanceof TRPCError ? (err.cause ?? err) : err;
    if (status === 503) log.warn({ err: cause }, 'fhir: database unavailable');
    else log.error({ err: cause }, 'fhir: interaction failed');
  } else if (status === 401 || status === 403) log.warn({ status }, 'fhir: call refused');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res
    .writeHead(status, { 'content-type': FHIR_JSON, 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify(operationOutcome(issues), null, pretty ? 2 : undefined));
}
