// The gateway's routes, declared once: which path prefixes it serves, which upstream answers each, what
// happens to the caller's credentials on the way, and which methods browsers on allow-listed origins may
// use. Routing (server/app.ts), the proxy (proxy/forward.ts), the metrics' route labels and the error
// envelope's `data.path` all read this list; anything not in it is a static page or a 404.
import { SCOPE_READ } from '@simrs/contracts/access';
import { MCP_PATH } from '@simrs/contracts/oauth';
import { config, oauth } from '../config.ts';

export type UpstreamName = 'identity' | 'records';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type ServedMethod = Method | 'HEAD';

export interface Route {
  /** Matched case-sensitively on the request target as sent: `/TRPC/x` is a 404, never a redirect. */
  prefix: string;
  upstream: UpstreamName;
  /**
   * `passthrough`: cookie and token go on untouched (identity reads them itself). `principal`: the gateway
   * resolves the caller from them (cookie under the origin rule, or bearer token), forwards a signed
   * principal instead and neither credential; refused credentials and the per-caller rate limit apply.
   */
  credentials: 'passthrough' | 'principal';
  /**
   * Methods a page on an allow-listed origin may use with credentials (the CORS preflight's answer);
   * empty: no CORS headers at all.
   */
  corsMethods: readonly Method[];
  /**
   * The methods the upstream serves under this prefix; any other answers 405 with `Allow` at the gateway
   * (TRACE, PROPFIND, ... never reach a service that cannot build a request from them). OPTIONS is the
   * CORS preflight, answered by the gateway on routes with `corsMethods`.
   */
  methods: readonly ServedMethod[];
  /**
   * What the path after the prefix names, for the route label of the metrics and the envelope's
   * `data.path`: `procedure` (tRPC: a procedure, or several joined by commas), `prefix` (a path under
   * the prefix), `exact` (one document, labelled like a static page).
   */
  paths: 'procedure' | 'prefix' | 'exact';
  /**
   * `principal` routes: the resource (RFC 8707) a bearer token must have been issued for, and whether a
   * session cookie counts at all (`false`: bearer tokens only, the cookie is dropped before anything
   * looks at it); `scope`: the scope a first call needs, named in the 401 challenge (MCP clients ask for
   * the challenge's scope rather than every scope the metadata lists).
   */
  resource?: { audience: string; cookies: boolean; scope?: string };
}

const API_METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Better Auth's endpoints are GETs and POSTs; tRPC queries are GETs and mutations POSTs. */
const GET_POST: readonly ServedMethod[] = ['GET', 'POST'];
const DOCUMENTS: readonly ServedMethod[] = ['GET', 'HEAD'];
/**
 * The REST routes records declares (services/records/src/pasien/procedures.ts), its documents, and the
 * FHIR interactions (services/records/src/fhir/routes.ts: update is PUT, delete is DELETE).
 */
const INTEGRATION: readonly ServedMethod[] = ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'];

export const routes: readonly Route[] = [
  // Better Auth: sign-in, sessions, the OAuth provider.
  { prefix: '/api/auth', upstream: 'identity', credentials: 'passthrough', corsMethods: API_METHODS, methods: GET_POST, paths: 'prefix' },
  // OAuth discovery at the site root (RFC 8414 for an issuer with a path, RFC 9728 for the API).
  {
    prefix: '/.well-known/oauth-authorization-server',
    upstream: 'identity',
    credentials: 'passthrough',
    corsMethods: API_METHODS,
    methods: DOCUMENTS,
    paths: 'exact',
  },
  {
    prefix: '/.well-known/openid-configuration',
    upstream: 'identity',
    credentials: 'passthrough',
    corsMethods: API_METHODS,
    methods: DOCUMENTS,
    paths: 'exact',
  },
  {
    prefix: '/.well-known/oauth-protected-resource',
    upstream: 'identity',
    credentials: 'passthrough',
    corsMethods: API_METHODS,
    methods: DOCUMENTS,
    paths: 'exact',
  },
  // The clinical API: tRPC for the dashboard and playground, REST for integrations.
  {
    prefix: '/trpc',
    upstream: 'records',
    credentials: 'principal',
    corsMethods: API_METHODS,
    methods: GET_POST,
    paths: 'procedure',
    resource: { audience: oauth.audience, cookies: true },
  },
  // The MCP server for AI agents (before the prefix it is under): tokens issued for it, no cookie, no CORS.
  {
    prefix: `${config.INTEGRATION_PREFIX}${MCP_PATH}`,
    upstream: 'records',
    credentials: 'principal',
    corsMethods: [],
    methods: ['GET', 'POST', 'DELETE'],
    paths: 'exact',
    resource: { audience: oauth.mcpResource, cookies: false, scope: SCOPE_READ },
  },
  {
    prefix: config.INTEGRATION_PREFIX,
    upstream: 'records',
    credentials: 'principal',
    corsMethods: API_METHODS,
    methods: INTEGRATION,
    paths: 'prefix',
    resource: { audience: oauth.audience, cookies: true },
  },
];

/** The route a path (without its query) is under, if any: the prefix itself or a path below it. */
export function routeFor(path: string): Route | undefined {
  return routes.find((route) => path === route.prefix || path.startsWith(`${route.prefix}/`));
}

/** Under a `procedure` route, the part of the path naming the procedure(s), still percent-encoded. */
export function procedureOf(path: string, route = routeFor(path)): string | undefined {
  return route?.paths === 'procedure' && path.startsWith(`${route.prefix}/`) ? path.slice(route.prefix.length + 1) : undefined;
}

/** A percent-encoded path segment decoded, or undefined when its encoding is not valid. */
export function decodePath(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
