// identity's HTTP surface: /healthz and /readyz, Better Auth under /api/auth (only the routes this
// service means to offer; anything else is a 404 before Better Auth sees it). No pages: the dashboard
// serves every page a person sees and calls these endpoints. The gateway proxies /api/auth/* here unchanged.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { requestContext } from '@simrs/platform/context';
import { serveHealth } from '@simrs/platform/health';
import { normalizePath } from '@simrs/platform/redact';
import { annotateRequest } from '@simrs/platform/spans';
import type { Checks } from '@simrs/platform/health';
import type { Logger } from '@simrs/platform/logger';
import { API_SCOPES, AUTH_BASE_PATH, resourceMetadataUrl } from '@simrs/contracts/oauth';
import { SMART_SCOPES } from '@simrs/contracts/smart';
import { codeForStatus, envelope, errorBodyFor, HTTP_STATUS, isOAuthPath, oauthError } from '@simrs/contracts/envelope';
import type { ErrorCode } from '@simrs/contracts/envelope';
import { jsonTooDeep, MAX_JSON_DEPTH, storableStrings } from '@simrs/platform/json-depth';
import { runChecks } from '@simrs/platform/health';
import type { Config } from '../config.ts';
import { PASSWORD_PATHS, SIGN_UP_DISABLED } from '../signin/index.ts';
import { observeAuthResponse } from './metrics.ts';

export const MAX_BODY_BYTES = 64 * 1024;

const EXACT = new Set([
  '/get-session',
  '/sign-out',
  '/sign-in/magic-link',
  '/magic-link/verify',
  '/email-otp/send-verification-otp',
  '/sign-in/email-otp',
  '/passkey/generate-authenticate-options',
  '/passkey/verify-authentication',
  '/passkey/generate-register-options',
  '/passkey/verify-registration',
  '/passkey/list-user-passkeys',
  '/passkey/update-passkey',
  '/passkey/delete-passkey',
  '/revoke-other-sessions',
  '/revoke-sessions',
  '/update-session',
  '/account/sessions',
  '/account/revoke-session',
  '/tenant/users',
  '/tenant/invite-user',
  '/tenant/change-role',
  '/tenant/deactivate-user',
  '/tenant/reactivate-user',
  '/jwks',
  // The OAuth 2.0 / OIDC provider (oauth/). Better Auth's client-management, consent-management,
  // resource-admin and session-token device routes are not offered.
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
  '/oauth2/register',
  '/oauth2/authorize',
  '/oauth2/consent',
  '/oauth2/continue',
  '/oauth2/token',
  '/oauth2/par',
  '/oauth2/userinfo',
  '/oauth2/introspect',
  '/oauth2/revoke',
  '/oauth2/end-session',
  '/oauth2/end-session/confirm',
  '/device/code',
  '/device',
  '/device/approve',
  '/device/deny',
  '/tenant/registration-tokens',
  '/tenant/oauth-clients',
  '/tenant/revoke-oauth-client',
  '/tenant/device-requests',
  '/tenant/names',
  '/account/me',
  '/account/oauth-client',
  '/ok',
  '/error',
  // Answered by Better Auth as disabled (signin/plugin.ts), so that callers get a clear reason.
  ...PASSWORD_PATHS,
]);
/** Every path under /api/auth that identity offers. */
export const OFFERED_PATHS: ReadonlySet<string> = EXACT;
export function isOffered(path: string): boolean {
  return EXACT.has(path);
}

/**
 * Discovery for the issuer ${PUBLIC_URL}/api/auth at the paths RFC 8414 §3.1 gives for an issuer with a
 * path (the well-known name between the host and the path), answered as the issuer's own documents
 * under /api/auth. The bare root documents are not served: their issuer would not match where they
 * were fetched (RFC 8414 §3.3). The same rule for the API's resource metadata (RFC 9728 §3.1).
 */
const ROOT_METADATA = new Map([
  [`/.well-known/oauth-authorization-server${AUTH_BASE_PATH}`, '/.well-known/oauth-authorization-server'],
  [`/.well-known/openid-configuration${AUTH_BASE_PATH}`, '/.well-known/openid-configuration'],
]);

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/**
 * The one error writer of identity's HTTP surface: the envelope, or RFC 6749's shape on the OAuth
 * endpoints (docs/api.md, "Errors").
 */
function sendError(res: ServerResponse, code: ErrorCode, message: string, path: string, headers: Record<string, string> = {}): void {
  res.writeHead(HTTP_STATUS[code], { ...JSON_HEADERS, ...headers });
  res.end(JSON.stringify(errorBodyFor(code, message, path)));
}

/** Retry-After for a dependency that is down: readiness probes run every few seconds. */
const RETRY_AFTER_SECONDS = '2';

/**
 * Better Auth answers its own errors as `{code, message}` (and the OAuth plugin in RFC 6749's shape).
 * Error answers are rewritten into the shape documented for the path, keeping Better Auth's code as
 * `data.reason` (INVALID_OTP, RATE_LIMITED, ...): one shape for the caller, whichever part refused.
 * Undefined: the body is already in that shape.
 */
export function documentedError(status: number, body: Buffer, path: string): Buffer | undefined {
  let parsed: unknown;
  try {
    parsed = body.length ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  const b = (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const code = codeForStatus(status);
  const stated = [b.message, b.error_description].find((v): v is string => typeof v === 'string' && v.length > 0);
  // A 5xx never carries an internal message.
  const message = status >= 500 && status !== 503 ? 'internal error' : (stated ?? code);
  if (isOAuthPath(path)) {
    if (typeof b.error === 'string') return undefined;
    return Buffer.from(JSON.stringify(oauthError(code, message)));
  }
  if (b.error && typeof b.error === 'object') return undefined;
  const body2 = envelope(code, message, path);
  const reason = typeof b.code === 'string' ? b.code : typeof b.error === 'string' ? b.error : undefined;
  return Buffer.from(JSON.stringify(reason ? { error: { ...body2.error, data: { ...body2.error.data, reason } } } : body2));
}

/** A JSON body whose strings Postgres can store (a body that does not parse is Better Auth's to refuse). */
function storableJson(req: IncomingMessage, body: Buffer): boolean {
  if (!/json/i.test(String(req.headers['content-type'] ?? ''))) return true;
  try {
    return storableStrings(JSON.parse(body.toString('utf8')));
  } catch {
    return true;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export interface HttpDeps {
  config: Config;
  handler: (request: Request) => Promise<Response>;
  checks: Checks;
  /** True while, or shortly after, a dependency failed (a connection dropped): its 500s are 503s. */
  recentTrouble?: () => boolean;
  log: Logger;
}

/**
 * RFC 9728: what a client needs to find the authorization server for each protected resource, at the
 * resource's own metadata address: the API (tRPC, REST, FHIR) and the MCP server for AI agents, whose
 * tools need only the API scopes.
 */
const resourceDocumentsOf = new WeakMap<Config, Map<string, string>>();
function resourceDocuments(config: Config): Map<string, string> {
  const known = resourceDocumentsOf.get(config);
  if (known) return known;
  const document = (resource: string, name: string, scopes: readonly string[]) => [
    new URL(resourceMetadataUrl(resource)).pathname,
    JSON.stringify({
      resource,
      authorization_servers: [`${config.PUBLIC_URL}${AUTH_BASE_PATH}`],
      scopes_supported: scopes,
      bearer_methods_supported: ['header'],
      resource_name: name,
    }),
  ];
  const documents = new Map([
    document(config.API_AUDIENCE, 'SIMRS API', [...API_SCOPES, ...SMART_SCOPES]),
    document(config.MCP_RESOURCE, 'SIMRS MCP server', API_SCOPES),
  ] as Array<[string, string]>);
  resourceDocumentsOf.set(config, documents);
  return documents;
}

function sendResourceDocument(res: ServerResponse, document: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' });
  res.end(document);
}

/** The request's headers for Better Auth, without the hop-by-hop ones. */
function forwardedHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Why a request body is refused before Better Auth parses it: the error to send, or undefined. */
function bodyProblem(req: IncomingMessage, body: Buffer | undefined): [ErrorCode, string, Record<string, string>?] | undefined {
  if (!body) return ['PAYLOAD_TOO_LARGE', `At most ${MAX_BODY_BYTES} bytes.`, { connection: 'close' }];
  // Behind the gateway's own bound, for callers inside the cluster (Better Auth validates recursively).
  if (jsonTooDeep(body)) return ['BAD_REQUEST', `JSON nests deeper than ${MAX_JSON_DEPTH} levels`];
  if (!storableJson(req, body)) return ['BAD_REQUEST', 'strings must be well-formed Unicode without NUL'];
  return undefined;
}

/** Better Auth's response headers as ours: no hop-by-hop ones, every cookie kept, never sniffed or cached by default. */
function answerHeaders(response: Response): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie' && !HOP_BY_HOP.has(name)) out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  out['x-content-type-options'] = 'nosniff';
  out['cache-control'] ??= 'no-store';
  return out;
}

/**
 * Better Auth's answer as sent: a 500 while a dependency is down becomes a 503 to retry, and an error
 * is rewritten into the shape documented for the path. Updates `out` (the headers) in place.
 */
async function documentedAnswer(
  deps: HttpDeps,
  response: Response,
  out: Record<string, string | string[]>,
  fullPath: string,
): Promise<{ status: number; body: Buffer; original: Buffer }> {
  let status = response.status;
  const original: Buffer = Buffer.from(await response.arrayBuffer());
  let body = original;
  // Better Auth turns a store it cannot reach into a 500 (FAILED_TO_GET_SESSION, ...): when a
  // dependency is down, that is a 503 the caller should retry, which readiness says too.
  if (status >= 500 && status !== 503 && (deps.recentTrouble?.() || !(await runChecks(deps.checks)).ready)) {
    status = 503;
    out['retry-after'] = RETRY_AFTER_SECONDS;
  }
  if (status >= 400) {
    const rewritten = documentedError(status, body, fullPath);
    if (rewritten) {
      body = rewritten;
      out['content-type'] = 'application/json';
    }
    if (status === 503) out['retry-after'] ??= RETRY_AFTER_SECONDS;
  }
  return { status, body, original };
}

/** Every sign-up route, existing in Better Auth or not, answers the same refusal. */
function refuseSignUp(res: ServerResponse, fullPath: string): void {
  const refused = documentedError(403, Buffer.from(JSON.stringify(SIGN_UP_DISABLED)), fullPath)!;
  res.writeHead(403, JSON_HEADERS);
  res.end(refused);
}

/** Hands an offered /api/auth path to Better Auth, its body checked first, and its answer documented. */
async function toBetterAuth(deps: HttpDeps, req: IncomingMessage, res: ServerResponse, sub: string, rewriteTo?: string): Promise<void> {
  const fullPath = `${AUTH_BASE_PATH}${sub}`;
  if (sub === '/sign-up' || sub.startsWith('/sign-up/')) return refuseSignUp(res, fullPath);
  if (!isOffered(sub)) return sendError(res, 'NOT_FOUND', 'no such endpoint', fullPath);
  annotateRequest(req, { route: `${AUTH_BASE_PATH}${normalizePath(sub)}` });
  const method = req.method ?? 'GET';
  let body: Buffer | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    body = await readBody(req);
    const problem = bodyProblem(req, body);
    if (problem) return sendError(res, problem[0], problem[1], fullPath, problem[2]);
  }
  // The public URL, not the Host header, is who we are (the gateway may rewrite Host).
  const request = new Request(new URL(rewriteTo ?? req.url ?? '/', deps.config.PUBLIC_URL), {
    method,
    headers: forwardedHeaders(req),
    body: body?.length ? new Uint8Array(body) : undefined,
  });
  const response = await deps.handler(request);
  const out = answerHeaders(response);
  const answer = await documentedAnswer(deps, response, out, fullPath);
  res.writeHead(answer.status, out);
  res.end(method === 'HEAD' ? undefined : answer.body);
  observeAuthResponse({
    path: sub,
    method,
    status: answer.status,
    location: response.headers.get('location'),
    requestBody: body,
    requestType: req.headers['content-type'],
    responseBody: answer.original,
  });
}

/** A request by its path: Better Auth, the discovery documents, or a 404. */
async function route(deps: HttpDeps, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (path.startsWith(`${AUTH_BASE_PATH}/`)) return toBetterAuth(deps, req, res, path.slice(AUTH_BASE_PATH.length));
  const metadata = ROOT_METADATA.get(path);
  if (metadata) return toBetterAuth(deps, req, res, metadata, `${AUTH_BASE_PATH}${metadata}`);
  const resource = resourceDocuments(deps.config).get(path);
  if (resource) return sendResourceDocument(res, resource);
  return sendError(res, 'NOT_FOUND', 'no such route', path);
}

/** A request that threw: a 503 while a dependency is down, else a 500; a half-sent answer is cut. */
async function answerFailure(deps: HttpDeps, res: ServerResponse, path: string, err: unknown): Promise<void> {
  deps.log.error({ err, path }, 'request failed');
  if (res.headersSent) return void res.destroy();
  const { ready } = await runChecks(deps.checks).catch(() => ({ ready: false }));
  if (!ready)
    sendError(res, 'SERVICE_UNAVAILABLE', 'a dependency is unavailable, try again shortly', path, {
      'retry-after': RETRY_AFTER_SECONDS,
    });
  else sendError(res, 'INTERNAL_SERVER_ERROR', 'internal error', path);
}

export function createHttpServer(deps: HttpDeps): Server {
  const health = serveHealth(deps.checks);
  return createServer((req, res) => {
    const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'].slice(0, 128) : undefined;
    requestContext.run({ requestId }, () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const work = async () => {
        if (health(req, res)) return;
        return route(deps, req, res, path);
      };
      work().catch((err: unknown) => answerFailure(deps, res, path, err));
    });
  });
}
