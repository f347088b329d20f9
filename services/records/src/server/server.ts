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
import { BodyTooLarge, readBody } from './body.ts';
import { cursors as makeCursors } from './cursor.ts';
import { sendError } from './http-error.ts';
import { singleQueryHandler } from './single-query.ts';
import { log } from './log.ts';
import { observeCall } from './metrics.ts';
import { createIntegrationHandler, docsPage, openApiDocument } from './openapi.ts';
import { principalVerifier } from './principals.ts';
import type { PrincipalVerifier } from './principals.ts';
import { appRouter } from './router.ts';
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

/** The tRPC context of a request: the principal the gateway signed and, with one, its tenant's scope. */
function contextFor(deps: RecordsDeps, verify: PrincipalVerifier, cursors: ReturnType<typeof makeCursors>) {
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
          db: tenantDb(deps.pool, principal.tenantId),
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
function docsResponder(prefix: string) {
  const doc = openApiDocument(prefix);
  const docJson = JSON.stringify(doc);
  const docsHtml = docsPage(doc, prefix);
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (req.method === 'GET' && path === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' }).end(docJson);
      return true;
    }
    if (req.method === 'GET' && (path === '/docs' || path === '/docs/')) {
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
    }
    return false;
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** /trpc/…: refuses in the JSON envelope what tRPC would refuse otherwise, then the one-query path or the adapter. */
function trpcRoute(trpc: Handler, singleQuery: ReturnType<typeof singleQueryHandler>) {
  return (req: IncomingMessage, res: ServerResponse, pathname: string, url: string): void => {
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
    if (singleQuery(req, res, pathname.slice('/trpc/'.length), url.slice(pathname.length))) return;
    return trpc(req, res);
  };
}

/** The integration prefix: the docs, else the REST call with its JSON body read and checked first. */
function integrationRoute(config: Config, docs: ReturnType<typeof docsResponder>, rest: ReturnType<typeof createIntegrationHandler>) {
  return async function integration(req: IncomingMessage & { body?: unknown }, res: ServerResponse, path: string): Promise<void> {
    if (docs(req, res, path)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      let raw: string;
      try {
        raw = await readBody(req, config.MAX_BODY_BYTES);
      } catch (err) {
        if (err instanceof BodyTooLarge)
          return sendError(res, 'PAYLOAD_TOO_LARGE', `request body is larger than ${config.MAX_BODY_BYTES} bytes`, path, {
            connection: 'close',
          });
        throw err;
      }
      const type = String(req.headers['content-type'] ?? '');
      if (raw.trim() !== '' && !/^application\/json\b/i.test(type)) {
        return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json', path);
      }
      // trpc-to-openapi only reads bodies whose type is exactly application/json; pass it as such.
      req.headers['content-type'] = 'application/json';
      // Behind the gateway's bound, for callers inside the cluster: the validators recurse.
      if (jsonTooDeep(raw)) return sendError(res, 'BAD_REQUEST', `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, path);
      try {
        req.body = raw.trim() === '' ? undefined : JSON.parse(raw);
      } catch {
        return sendError(res, 'PARSE_ERROR', 'request body is not valid JSON', path);
      }
    }
    await rest(req, res);
  };
}

export function createRecordsServer(config: Config, deps: RecordsDeps): Server {
  const health = serveHealth(deps.checks);
  const verify = principalVerifier(config.PRINCIPAL_SECRET);
  const prefix = config.INTEGRATION_PREFIX;
  const createContext = contextFor(deps, verify, makeCursors(config.PRINCIPAL_SECRET));

  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: config.MAX_BODY_BYTES,
    maxBatchSize: 10,
    createContext: ({ req }) => createContext(req),
    onError: ({ error, path }) => onError(error, path),
    responseMeta: ({ errors }) => ({ headers: headersFor(errors) }),
  });
  // One query by GET (the dashboard's and integrations' everyday call) skips the adapter's Fetch API round trip.
  const trpcCall = trpcRoute(trpc, singleQueryHandler({ router: appRouter, createContext, onError, headersFor }));
  const fhir = createFhirHandler({ prefix, publicUrl: config.PUBLIC_URL, maxBodyBytes: config.MAX_BODY_BYTES, createContext });
  const fhirBase = `${prefix}/fhir`;
  const rest = createIntegrationHandler({ prefix, createContext, onError: (err, path) => onError(err as { code: string }, path) });
  const integration = integrationRoute(config, docsResponder(prefix), rest);

  return createServer((req, res) => {
    if (health(req, res)) return;
    const requestId = String(req.headers[REQUEST_ID_HEADER] ?? '');
    requestContext.run({ requestId }, () => {
      const url = req.url ?? '/';
      const pathname = url.split('?')[0] ?? '/';
      if (pathname === fhirBase || pathname.startsWith(`${fhirBase}/`)) {
        // FHIR answers its own errors (OperationOutcome), body limits included.
        const path = pathname.slice(fhirBase.length) || '/';
        observeCall(req, res, { surface: 'fhir', pathname, prefix, route: fhirRouteOf(req.method ?? 'GET', path, prefix) });
        return void fhir(req, res, path, url.slice(pathname.length));
      }
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > config.MAX_BODY_BYTES) {
        return sendError(res, 'PAYLOAD_TOO_LARGE', `request body is larger than ${config.MAX_BODY_BYTES} bytes`, pathname, {
          connection: 'close',
        });
      }
      if (pathname.startsWith('/trpc/')) {
        observeCall(req, res, { surface: 'trpc', pathname, prefix });
        return trpcCall(req, res, pathname, url);
      }
      if (pathname === prefix || pathname.startsWith(`${prefix}/`)) {
        observeCall(req, res, { surface: 'rest', pathname, prefix });
        const path = pathname.slice(prefix.length) || '/';
        req.url = path + url.slice(pathname.length);
        return void integration(req, res, path).catch((err: unknown) => {
          log.error({ err }, 'integration request failed');
          if (!res.headersSent) sendError(res, 'INTERNAL_SERVER_ERROR', 'internal error', path);
          else res.destroy();
        });
      }
      sendError(res, 'NOT_FOUND', 'no such route', pathname);
    });
  });
}
