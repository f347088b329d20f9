// The gateway's routes. Auth traffic goes to identity untouched; API traffic gets a caller resolved
// from its credential, a signed principal for records, and nothing the client sent in its place.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import cors from 'cors';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { requestContext } from '@simrs/platform/context';
import { envelope } from '@simrs/contracts/envelope';
import type { ErrorCode } from '@simrs/contracts/envelope';
import { PRINCIPAL_HEADER, REQUEST_ID_HEADER } from '@simrs/contracts/principal';
import { allowedOrigins, config } from './config.ts';
import { dashboard } from './dashboard/index.ts';
import { MalformedAuthorization, resolveCaller, UnknownSession } from './credentials.ts';
import type { Caller } from './credentials.ts';
import { InvalidToken } from './auth/bearer.ts';
import type { BearerAuthenticator } from './auth/bearer.ts';
import { UpstreamUnavailable } from './auth/session.ts';
import type { SessionAuthenticator } from './auth/session.ts';
import { CallerRateLimit } from './limits.ts';
import { log } from './log.ts';
import { observeRequests } from './observability.ts';
import { forwardHeaders, procedurePath, proxy } from './proxy.ts';
import type { Upstream } from './proxy.ts';

export interface GatewayDeps {
  identity: Upstream;
  records: Upstream;
  sessions: SessionAuthenticator;
  bearer: BearerAuthenticator;
}

const REQUEST_ID = /^[\w.-]{8,64}$/;

function fail(res: Response, req: Request, code: ErrorCode, message: string): void {
  res.locals.answeredByGateway = true;
  const body = envelope(code, message, procedurePath(req));
  res.status(body.error.data.httpStatus).json(body);
}

export function createApp(deps: GatewayDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false);

  app.use((req, res, next) => {
    const incoming = req.headers[REQUEST_ID_HEADER];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    requestContext.run({ requestId }, next);
  });
  app.use(observeRequests(config.INTEGRATION_PREFIX));
  app.use(helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'connect-src': ["'self'", ...allowedOrigins] } } }));

  // Credentials only for allow-listed origins; other browsers get no CORS headers at all. Preflights
  // end here and are cached by the browser for ten minutes. Non-browser callers are unaffected.
  const corsForApi = cors({
    origin: (origin, done) => done(null, origin !== undefined && allowedOrigins.has(origin)),
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'x-request-id', 'trpc-accept'],
    exposedHeaders: ['x-request-id', 'retry-after'],
    maxAge: 600,
  });

  const forwardedFor = (req: Request) => ({
    // Exactly one address, the client's as seen through trusted proxies only.
    'x-forwarded-for': req.ip ?? req.socket.remoteAddress ?? '',
    'x-forwarded-proto': req.protocol,
    'x-forwarded-host': req.hostname,
    [PRINCIPAL_HEADER]: undefined,
  });

  const limits = { maxBodyBytes: config.MAX_BODY_BYTES, bodyTimeoutMs: config.BODY_TIMEOUT_MS };
  const toIdentity: RequestHandler = (req, res) => proxy(deps.identity, req, res, forwardHeaders(req.headers, forwardedFor(req)), limits);
  const rateLimit = new CallerRateLimit(config.RATE_LIMIT_PER_MINUTE);
  const credentialFailures = new CallerRateLimit(config.CREDENTIAL_FAILURES_PER_MINUTE);
  // Express matches mount paths case-insensitively and accepts absolute-form targets; upstreams get
  // only the canonical origin-form path they are mounted at.
  const mounted = (prefix: string, ...handlers: RequestHandler[]) =>
    app.use(prefix, (req, res, next) => (req.originalUrl.startsWith(prefix) ? next() : fail(res, req, 'NOT_FOUND', 'no such route')), ...handlers);
  mounted('/api/auth', corsForApi, toIdentity);
  mounted('/auth', toIdentity);
  // OAuth discovery at the site root (RFC 8414 for an issuer with a path, RFC 9728 for the API).
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-protected-resource'])
    mounted(path, corsForApi, toIdentity);

  const toRecords: RequestHandler = async (req, res) => {
    // Refused credentials are counted per client IP and stop being checked (no signature check, no
    // call to identity) once over the limit: guessing and floods cost the gateway next to nothing.
    const ipKey = `ip:${req.ip}`;
    const presentsCredential = req.headers.authorization !== undefined || req.headers.cookie !== undefined;
    const cooling = presentsCredential ? await credentialFailures.blocked(ipKey) : undefined;
    if (cooling !== undefined) {
      res.setHeader('retry-after', String(cooling));
      return fail(res, req, 'TOO_MANY_REQUESTS', `too many rejected credentials, retry in ${cooling} s`);
    }
    let caller: Caller | undefined;
    try {
      caller = await resolveCaller(req, deps);
    } catch (err) {
      if (err instanceof UpstreamUnavailable) return fail(res, req, 'SERVICE_UNAVAILABLE', 'sign-in service unavailable, try again shortly');
      if (err instanceof InvalidToken || err instanceof MalformedAuthorization) {
        await credentialFailures.check(ipKey);
        res.setHeader('www-authenticate', `Bearer error="invalid_token", error_description="${err instanceof MalformedAuthorization ? 'malformed' : 'invalid or expired'}"`);
        return fail(res, req, 'UNAUTHORIZED', 'the access token is invalid, expired or revoked');
      }
      if (!(err instanceof UnknownSession)) throw err;
      await credentialFailures.check(ipKey);
    }
    if (caller) requestContext.getStore()!.tenantId = caller.principal.tenantId;
    const wait = await rateLimit.check(caller ? `${caller.principal.clientId ?? ''}:${caller.principal.userId}` : `ip:${req.ip}`);
    if (wait !== undefined) {
      res.setHeader('retry-after', String(wait));
      return fail(res, req, 'TOO_MANY_REQUESTS', `too many requests, retry in ${wait} s`);
    }
    const cache = req.headers.authorization ? deps.bearer.cache : deps.sessions.cache;
    const principal = caller ? await cache.mint(caller.key, caller.principal) : undefined;
    await proxy(
      deps.records,
      req,
      res,
      forwardHeaders(req.headers, {
        ...forwardedFor(req),
        // Records needs neither the cookie nor the token: the principal says everything.
        cookie: undefined,
        authorization: undefined,
        [PRINCIPAL_HEADER]: principal,
      }),
      limits,
    );
  };
  mounted('/trpc', corsForApi, toRecords);
  mounted(config.INTEGRATION_PREFIX, corsForApi, toRecords);

  app.use(dashboard(undefined, (dir) => log.warn({ dir }, 'dashboard not built: npm run build -w @simrs/dashboard')));
  app.use(express.static(fileURLToPath(new URL('../public', import.meta.url)), { index: 'index.html', maxAge: '5m' }));

  app.use((req, res) => fail(res, req, 'NOT_FOUND', `no route for ${req.method} ${req.path}`));
  // Express 5 hands rejected promises here. The log gets the stack; the caller gets nothing inside.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status && status >= 400 && status < 500) return fail(res, req, 'BAD_REQUEST', 'bad request');
    log.error({ err }, 'request failed');
    if (res.headersSent) return void res.destroy();
    try {
      fail(res, req, 'INTERNAL_SERVER_ERROR', 'internal error');
    } catch {
      res.status(500).end();
    }
  });
  return app;
}
