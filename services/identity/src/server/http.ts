// identity's HTTP surface: /healthz and /readyz, Better Auth under /api/auth (only the routes this
// service means to offer; anything else is a 404 before Better Auth sees it), and its own pages under
// /auth. The gateway proxies /api/auth/* and /auth/* here unchanged.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { requestContext } from '@simrs/platform/context';
import { serveHealth } from '@simrs/platform/health';
import { normalizePath } from '@simrs/platform/redact';
import { annotateRequest } from '@simrs/platform/spans';
import type { Checks } from '@simrs/platform/health';
import type { Logger } from '@simrs/platform/logger';
import { API_SCOPES, AUTH_BASE_PATH } from '@simrs/contracts/oauth';
import { SMART_SCOPES } from '@simrs/contracts/smart';
import type { Config } from '../config.ts';
import type { Pages } from '../pages/index.ts';
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
  '/ok',
  '/error',
  // Answered by Better Auth as disabled (signin/plugin.ts), so that callers get a clear reason.
  ...PASSWORD_PATHS,
]);
export function isOffered(path: string): boolean {
  return EXACT.has(path);
}

/**
 * Discovery at the site root, where RFC 8414 (and some clients) look for an issuer with a path:
 * answered as the issuer's own documents under /api/auth.
 */
const ROOT_METADATA: Record<string, string> = {
  '/.well-known/oauth-authorization-server': '/.well-known/oauth-authorization-server',
  [`/.well-known/oauth-authorization-server${AUTH_BASE_PATH}`]: '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration': '/.well-known/openid-configuration',
  [`/.well-known/openid-configuration${AUTH_BASE_PATH}`]: '/.well-known/openid-configuration',
};
const PROTECTED_RESOURCE_METADATA = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api'];

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

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
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
  pages: Pages;
  checks: Checks;
  log: Logger;
}

export function createHttpServer(deps: HttpDeps): Server {
  const { config, log } = deps;
  const health = serveHealth(deps.checks);

  /** RFC 9728: what a client needs to find the authorization server for the SIMRS API. */
  function protectedResource(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' });
    res.end(
      JSON.stringify({
        resource: config.API_AUDIENCE,
        authorization_servers: [`${config.PUBLIC_URL}${AUTH_BASE_PATH}`],
        scopes_supported: [...API_SCOPES, ...SMART_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'SIMRS API',
      }),
    );
  }

  async function toBetterAuth(req: IncomingMessage, res: ServerResponse, sub: string, rewriteTo?: string): Promise<void> {
    // Every sign-up route, existing in Better Auth or not, answers the same refusal.
    if (sub === '/sign-up' || sub.startsWith('/sign-up/')) return json(res, 403, SIGN_UP_DISABLED);
    if (!isOffered(sub)) return json(res, 404, { code: 'NOT_FOUND', message: 'Not found' });
    annotateRequest(req, { route: `${AUTH_BASE_PATH}${normalizePath(sub)}` });
    const method = req.method ?? 'GET';
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    let body: Buffer | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      body = await readBody(req);
      if (!body) return json(res, 413, { code: 'PAYLOAD_TOO_LARGE', message: `At most ${MAX_BODY_BYTES} bytes.` });
    }
    // The public URL, not the Host header, is who we are (the gateway may rewrite Host).
    const request = new Request(new URL(rewriteTo ?? req.url ?? '/', config.PUBLIC_URL), {
      method,
      headers,
      body: body?.length ? new Uint8Array(body) : undefined,
    });
    const response = await deps.handler(request);
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie' && !HOP_BY_HOP.has(name)) out[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) out['set-cookie'] = cookies;
    out['x-content-type-options'] = 'nosniff';
    out['cache-control'] ??= 'no-store';
    res.writeHead(response.status, out);
    const responseBody = Buffer.from(await response.arrayBuffer());
    res.end(responseBody);
    observeAuthResponse({
      path: sub,
      method,
      status: response.status,
      location: response.headers.get('location'),
      requestBody: body,
      requestType: req.headers['content-type'],
      responseBody,
    });
  }

  return createServer((req, res) => {
    const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'].slice(0, 128) : undefined;
    requestContext.run({ requestId }, () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const work = async () => {
        if (health(req, res)) return;
        if (path.startsWith(`${AUTH_BASE_PATH}/`)) return toBetterAuth(req, res, path.slice(AUTH_BASE_PATH.length));
        const metadata = ROOT_METADATA[path];
        if (metadata) return toBetterAuth(req, res, metadata, `${AUTH_BASE_PATH}${metadata}`);
        if (PROTECTED_RESOURCE_METADATA.includes(path)) return protectedResource(res);
        if (path === '/auth' || path.startsWith('/auth/')) {
          annotateRequest(req, { route: normalizePath(path) });
          return deps.pages.serve(req, res, path);
        }
        return json(res, 404, { code: 'NOT_FOUND', message: 'Not found' });
      };
      work().catch((err: unknown) => {
        log.error({ err, path }, 'request failed');
        if (!res.headersSent) json(res, 500, { code: 'INTERNAL_SERVER_ERROR', message: 'Internal error' });
        else res.destroy();
      });
    });
  });
}
