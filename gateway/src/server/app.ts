// The gateway's HTTP app, assembled from the route table. Auth traffic goes to identity untouched; API
// traffic passes four named middleware (throttle refused credentials, authenticate, rate limit,
// forward) and reaches records with a signed principal and nothing the client sent in its place.
import { fileURLToPath } from 'node:url';
import cors from 'cors';
import express from 'express';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { Redis } from '@simrs/platform/redis';
import { allowedOrigins, config, oauth } from '../config.ts';
import { authenticate, throttleRefusedCredentials } from '../credentials/index.ts';
import type { BearerAuthenticator, SessionAuthenticator } from '../credentials/index.ts';
import { CallerRateLimit, limitKeySecret, rateLimit, rateLimitPerClient } from '../limits/index.ts';
import { dashboard } from '../dashboard/index.ts';
import { forward } from '../proxy/index.ts';
import type { Upstream } from '../proxy/index.ts';
import { routes } from '../routes/index.ts';
import type { Method, Route, UpstreamName } from '../routes/index.ts';
import { withRequestId } from './context.ts';
import { log } from './log.ts';
import { answerErrors, sendError } from './errors.ts';
import { observeRequests } from './observability.ts';
import { inSequence } from './sequence.ts';

export interface GatewayDeps {
  upstreams: Record<UpstreamName, Upstream>;
  sessions: SessionAuthenticator;
  bearer: BearerAuthenticator;
  /** Where the limits count, shared by every replica. */
  redis: Redis;
}

/**
 * Credentials only for allow-listed origins; other browsers get no CORS headers at all. Preflights
 * end here and are cached by the browser for ten minutes. Non-browser callers are unaffected.
 */
function corsFor(methods: readonly Method[]): RequestHandler {
  return cors({
    origin: (origin, done) => done(null, origin !== undefined && allowedOrigins.has(origin)),
    credentials: true,
    methods: [...methods],
    // FHIR clients in the browser (SMART apps) also send versioning and conditional headers and read
    // the version and location of what they wrote.
    allowedHeaders: ['authorization', 'content-type', 'x-request-id', 'trpc-accept', 'accept', 'if-match', 'if-none-exist', 'prefer'],
    exposedHeaders: ['x-request-id', 'retry-after', 'etag', 'location', 'content-location', 'last-modified'],
    maxAge: 600,
  });
}

/**
 * Express matches mount paths case-insensitively and accepts absolute-form targets; upstreams get only
 * the canonical origin-form path they are mounted at.
 */
function canonicalPathOnly(prefix: string): RequestHandler {
  return (req, res, next) => (req.originalUrl.startsWith(prefix) ? next() : sendError(res, 'NOT_FOUND', 'no such route'));
}

/** A bearer-only route: a session cookie neither authenticates nor travels on. */
const dropCookies: RequestHandler = (req, _res, next) => {
  delete req.headers.cookie;
  next();
};

/** Methods the route does not serve end here: 405 with `Allow` (preflights go on to CORS). */
function servedMethods(route: Route): RequestHandler {
  const allowed = new Set<string>(route.methods);
  const allow = [...route.methods, ...(route.corsMethods.length > 0 ? ['OPTIONS'] : [])].join(', ');
  return (req, res, next) => {
    if (allowed.has(req.method) || (req.method === 'OPTIONS' && route.corsMethods.length > 0)) return next();
    sendError(res, 'METHOD_NOT_SUPPORTED', `${req.method} is not served here`, { allow });
  };
}

export function createApp(deps: GatewayDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false);

  app.use(withRequestId);
  app.use(observeRequests());
  app.use(helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'connect-src': ["'self'", ...allowedOrigins] } } }));

  // One count of refused credentials and one request budget, shared by every route that resolves a caller
  // and, through Redis, by every replica (PRINCIPAL_SECRET is the secret all replicas share).
  const limits = { redis: deps.redis, keySecret: limitKeySecret(config.PRINCIPAL_SECRET) };
  const refused = new CallerRateLimit({ ...limits, name: 'refused', perMinute: config.CREDENTIAL_FAILURES_PER_MINUTE });
  const callerLimit = new CallerRateLimit({ ...limits, name: 'caller', perMinute: config.RATE_LIMIT_PER_MINUTE });
  // Agents (the bearer-only MCP route) also share one budget per OAuth client, whoever they act for.
  const clientLimit = new CallerRateLimit({ ...limits, name: 'client', perMinute: config.MCP_CALLS_PER_MINUTE });
  const forwarding = { upstreams: deps.upstreams, maxBodyBytes: config.MAX_BODY_BYTES, bodyTimeoutMs: config.BODY_TIMEOUT_MS };
  const handlersOf = (route: Route): RequestHandler[] => [
    servedMethods(route),
    ...(route.corsMethods.length > 0 ? [corsFor(route.corsMethods)] : []),
    ...(route.credentials === 'principal'
      ? [
          throttleRefusedCredentials(),
          ...(route.resource?.cookies === false ? [dropCookies] : []),
          authenticate({ sessions: deps.sessions, bearer: deps.bearer, refused }, route.resource?.audience ?? oauth.audience),
          rateLimit(callerLimit, refused),
          ...(route.resource?.cookies === false ? [rateLimitPerClient(clientLimit)] : []),
        ]
      : []),
    forward(route, forwarding),
  ];
  for (const route of routes) app.use(route.prefix, inSequence([canonicalPathOnly(route.prefix), ...handlersOf(route)]));

  app.use(dashboard(undefined, (dir) => log.warn({ dir }, 'dashboard not built: npm run build -w @simrs/dashboard')));
  app.use(express.static(fileURLToPath(new URL('../../public', import.meta.url)), { index: 'index.html', maxAge: '5m' }));

  app.use((req, res) => sendError(res, 'NOT_FOUND', `no route for ${req.method} ${req.path}`));
  app.use(answerErrors);
  return app;
}
