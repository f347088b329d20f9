// The records HTTP surface: /healthz and /readyz, tRPC under /trpc, REST + OpenAPI + docs under the
// integration prefix. The gateway is the only caller; the principal it signs is the only credential.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { jsonTooDeep, MAX_JSON_DEPTH } from '@simrs/platform/json-depth';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { requestContext } from '@simrs/platform/context';
import type { Pool } from '@simrs/platform/db';
import { serveHealth } from '@simrs/platform/health';
import { annotateRequest } from '@simrs/platform/spans';
import type { Checks } from '@simrs/platform/health';
import { PRINCIPAL_HEADER, REQUEST_ID_HEADER } from '@simrs/contracts/principal';
import type { Principal } from '@simrs/contracts/principal';
import type { Config } from '../config.ts';
import { tenantDb } from '../db/index.ts';
import { createFhirHandler, fhirRouteOf } from '../fhir/index.ts';
import { createMcpHandler } from '../mcp/index.ts';
import { BodyTooLarge, readBody } from './body.ts';
import { cursors as makeCursors } from './cursor.ts';
import { sendError } from './http-error.ts';
import { singleCallHandler } from '../shims/index.ts';
import { log } from './log.ts';
import { observeCall } from './metrics.ts';
import { docsPage, openApiDocument } from './openapi.ts';
import { principalVerifier } from './principals.ts';
import { restHandler } from './rest.ts';
import { inTraceContext } from './tracing.ts';
import type { PrincipalVerifier } from './principals.ts';
import { appRouter } from './router.ts';
import { createCallerFactory } from './trpc.ts';
import type { Context } from './trpc.ts';

async function principalOf(header: string | string[] | undefined, verify: PrincipalVerifier): Promise<Principal | undefined> {
  if (typeof header !== 'string' || header === '') return undefined;
  try {
    return await verify(header);
  } catch {
    log.warn('rejected an invalid principal header');
    return undefined;
  }
}

export interface RecordsDeps {
  pool: Pool;
  checks: Checks;
}

type Cursors = ReturnType<typeof makeCursors>;

/** The tRPC context of a request: the principal the gateway signed and, with one, its tenant's scope. */
function contextFor(deps: RecordsDeps, verify: PrincipalVerifier, cursors: Cursors) {
  return async function createContext(req: IncomingMessage): Promise<Context> {
    const principal = await principalOf(req.headers[PRINCIPAL_HEADER], verify);
    const requestId = String(req.headers[REQUEST_ID_HEADER] ?? '') || randomUUID();
    const span = trace.getActiveSpan()?.spanContext();
    const traceId = span && isSpanContextValid(span) ? span.traceId : undefined;
    if (principal) {
      const store = requestContext.getStore();
      if (store) store.tenantId = principal.tenantId;
      annotateRequest(req, { tenantId: principal.tenantId });
    }
    const scope = principal
      ? {
          // A GET's work may be sent again after a dropped connection (db/retry.ts); other methods' only when uncommitted.
          db: tenantDb(deps.pool, principal.tenantId, { idempotent: req.method === 'GET' || req.method === 'HEAD' }),
          actor: { userId: principal.userId, role: principal.role, clientId: principal.clientId, requestId, traceId },
          cursors,
        }
      : undefined;
    return { principal, requestId, scope };
  };
}

/** Logs the failures an operator should see: errors, the database away, refused calls. */
function onError(error: { code: string; cause?: unknown }, path: string | undefined): void {
  if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ err: error.cause ?? error, path }, 'procedure failed');
  else if (error.code === 'SERVICE_UNAVAILABLE') log.warn({ err: error.cause ?? error, path }, 'database unavailable');
  else if (error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN') log.warn({ code: error.code, path }, 'call refused');
}

// The database away is a 503 the caller should retry: say when, as every other 503 does.
const headersFor = (errors: readonly { code: string }[]): Record<string, string> =>
  errors.some((e) => e.code === 'SERVICE_UNAVAILABLE') ? { 'retry-after': '1' } : {};

/** Answers GET of the OpenAPI document and of its docs page; false for any other request. */
function docsResponder(doc: ReturnType<typeof openApiDocument>, prefix: string) {
  const docJson = JSON.stringify(doc);
  const docsHtml = docsPage(doc, prefix);
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (req.method !== 'GET') return false;
    if (path === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' }).end(docJson);
      return true;
    }
    if (path !== '/docs' && path !== '/docs/') return false;
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy':
          "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
      })
      .end(docsHtml);
    return true;
  };
}

/** A REST request's JSON body, or false once the refusal (size, type, depth, syntax) has been answered. */
async function jsonBody(req: IncomingMessage, res: ServerResponse, path: string, maxBytes: number): Promise<{ body: unknown } | false> {
  let raw: string;
  try {
    raw = await readBody(req, maxBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    sendError(res, 'PAYLOAD_TOO_LARGE', `request body is larger than ${maxBytes} bytes`, path, { connection: 'close' });
    return false;
  }
  const type = String(req.headers['content-type'] ?? '');
  if (raw.trim() !== '' && !/^application\/json\b/i.test(type)) {
    sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json', path);
    return false;
  }
  // Behind the gateway's bound, for callers inside the cluster: the validators recurse.
  if (jsonTooDeep(raw)) {
    sendError(res, 'BAD_REQUEST', `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, path);
    return false;
  }
  try {
    return { body: raw.trim() === '' ? undefined : JSON.parse(raw) };
  } catch {
    sendError(res, 'PARSE_ERROR', 'request body is not valid JSON', path);
    return false;
  }
}

/** The integration prefix: the OpenAPI document, its docs page, and the REST operations it lists. */
function integrationRoute(config: Config, createContext: (req: IncomingMessage) => Promise<Context>) {
  const doc = openApiDocument(config.INTEGRATION_PREFIX, config.PUBLIC_URL);
  const docs = docsResponder(doc, config.INTEGRATION_PREFIX);
  const rest = restHandler({ doc, createContext, onError, headersFor });
  return async (req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<void> => {
    if (docs(req, res, path)) return;
    if (req.method === 'GET' || req.method === 'HEAD') return rest(req, res, path, search, undefined);
    const read = await jsonBody(req, res, path, config.MAX_BODY_BYTES);
    if (read) await rest(req, res, path, search, read.body);
  };
}

/** /trpc/*: refusals tRPC would answer outside the envelope, one GET query or POST mutation by the shim, else the adapter. */
function trpcRoute(config: Config, createContext: (req: IncomingMessage) => Promise<Context>) {
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: config.MAX_BODY_BYTES,
    maxBatchSize: 10,
    createContext: ({ req }) => createContext(req),
    onError: ({ error, path }) => onError(error, path),
    responseMeta: ({ errors }) => ({ headers: headersFor(errors) }),
  });
  // One query by GET or one mutation by POST (the dashboard's and integrations' everyday calls) skips the adapter's Fetch API round trip.
  const singleCall = singleCallHandler({ router: appRouter, createContext, onError, headersFor, maxBodyBytes: config.MAX_BODY_BYTES });
  return (req: IncomingMessage, res: ServerResponse, pathname: string, search: string): void => {
    // tRPC answers a procedure path that is not valid percent-encoding with a 400 that is not JSON.
    try {
      decodeURIComponent(pathname);
    } catch {
      return sendError(res, 'BAD_REQUEST', 'the procedure path is not valid percent-encoding', pathname);
    }
    // tRPC refuses other body types with a 415 that is not JSON; answer it here, in the envelope.
    if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
      return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json', pathname.slice('/trpc/'.length), {
        connection: 'close',
      });
    if (singleCall(req, res, pathname.slice('/trpc/'.length), search)) return;
    trpc(req, res);
  };
}

export function createRecordsServer(config: Config, deps: RecordsDeps): Server {
  const health = serveHealth(deps.checks);
  const prefix = config.INTEGRATION_PREFIX;
  const createContext = contextFor(deps, principalVerifier(config.PRINCIPAL_SECRET), makeCursors(config.PRINCIPAL_SECRET));
  const trpc = trpcRoute(config, createContext);
  const fhir = createFhirHandler({
    prefix,
    publicUrl: config.PUBLIC_URL,
    maxBodyBytes: config.MAX_BODY_BYTES,
    exportPollSeconds: config.EXPORT_POLL_INTERVAL_SECONDS,
    createContext,
  });
  const fhirBase = `${prefix}/fhir`;
  const integration = integrationRoute(config, createContext);
  const mcpPath = `${prefix}/mcp`;
  const callerOf = createCallerFactory(appRouter);
  const mcp = createMcpHandler({
    publicUrl: config.PUBLIC_URL,
    prefix,
    mcpResource: config.MCP_RESOURCE,
    maxBodyBytes: config.MAX_BODY_BYTES,
    createContext,
    callerFor: (ctx) => callerOf(ctx),
  });

  return createServer((req, res) => {
    if (health(req, res)) return;
    const requestId = String(req.headers[REQUEST_ID_HEADER] ?? '');
    inTraceContext(req, res, () => requestContext.run({ requestId }, () => route(req, res)));
  });

  function route(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const pathname = url.split('?')[0] ?? '/';
    if (pathname === fhirBase || pathname.startsWith(`${fhirBase}/`)) {
      // FHIR answers its own errors (OperationOutcome), body limits included.
      const path = pathname.slice(fhirBase.length) || '/';
      observeCall(req, res, { surface: 'fhir', pathname, prefix, route: fhirRouteOf(req.method ?? 'GET', path, prefix) });
      return void fhir(req, res, path, url.slice(pathname.length));
    }
    if (pathname === mcpPath) {
      // MCP answers its own errors (JSON-RPC in the body, the OAuth challenges in the headers).
      observeCall(req, res, { surface: 'mcp', pathname, prefix, route: `${req.method ?? 'POST'} /mcp` });
      return void mcp(req, res).catch((err: unknown) => {
        log.error({ err }, 'MCP request failed');
        if (!res.headersSent) sendError(res, 'INTERNAL_SERVER_ERROR', 'internal error', pathname);
        else res.destroy();
      });
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > config.MAX_BODY_BYTES) {
      return sendError(res, 'PAYLOAD_TOO_LARGE', `request body is larger than ${config.MAX_BODY_BYTES} bytes`, pathname, {
        connection: 'close',
      });
    }
    if (pathname.startsWith('/trpc/')) {
      observeCall(req, res, { surface: 'trpc', pathname, prefix });
      return trpc(req, res, pathname, url.slice(pathname.length));
    }
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) {
      observeCall(req, res, { surface: 'rest', pathname, prefix });
      const path = pathname.slice(prefix.length) || '/';
      return void integration(req, res, path, url.slice(pathname.length)).catch((err: unknown) => {
        log.error({ err }, 'integration request failed');
        if (!res.headersSent) sendError(res, 'INTERNAL_SERVER_ERROR', 'internal error', path);
        else res.destroy();
      });
    }
    sendError(res, 'NOT_FOUND', 'no such route', pathname);
  }
}
