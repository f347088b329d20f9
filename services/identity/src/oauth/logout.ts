// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) at /oauth2/end-session, on top of Better
// Auth's: a post_logout_redirect_uri must be one the client registered, matched exactly (§3: the OP
// must not redirect anywhere else), or the request is refused before any session ends; `state` is
// echoed on the redirect (Better Auth); the session's deletion reaches the gateway through the session
// delete hook (auth/auth.ts), so the cookie stops working there at once. A caller that is not a browser
// and names no redirect gets a plain "logged out" page instead of Better Auth's `null`.
import { createAuthMiddleware } from 'better-auth/api';
import type { Ctx } from '../signin/index.ts';
import type { OAuthClients } from './oauth-clients.ts';
import { decodePayload, isPlainObject, oauthError } from './tokens.ts';

const END_SESSION = '/oauth2/end-session';

function logoutRequest(ctx: Ctx): Record<string, unknown> {
  const source = ctx.method === 'POST' ? ctx.body : ctx.query;
  return isPlainObject(source) ? source : {};
}

export function logoutHooks(oauthClients: OAuthClients) {
  /** The client a logout request names: client_id, else the ID token hint's audience. */
  function clientIdOf(request: Record<string, unknown>): string | undefined {
    if (typeof request.client_id === 'string' && request.client_id) return request.client_id;
    const hint = typeof request.id_token_hint === 'string' ? decodePayload(request.id_token_hint) : undefined;
    const aud = hint?.aud;
    return typeof aud === 'string' ? aud : Array.isArray(aud) && typeof aud[0] === 'string' ? aud[0] : undefined;
  }

  async function beforeEndSession(ctx: Ctx): Promise<void> {
    const request = logoutRequest(ctx);
    const target = request.post_logout_redirect_uri;
    if (target === undefined) return;
    const clientId = clientIdOf(request);
    const client = clientId ? await oauthClients.find(clientId) : undefined;
    if (typeof target !== 'string' || !client || !client.postLogoutRedirectUris.includes(target))
      throw oauthError('BAD_REQUEST', 'invalid_request', 'post_logout_redirect_uri is not registered for this client');
  }

  async function afterEndSession(ctx: Ctx) {
    if (ctx.context.returned !== null) return;
    return new Response(
      '<!doctype html><html><head><meta charset="utf-8"><title>Logged out</title></head><body><p>Logged out.</p></body></html>',
      {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
      },
    );
  }

  const matches = (ctx: { path?: string }) => ctx.path === END_SESSION;
  return {
    before: [{ matcher: matches, handler: createAuthMiddleware(beforeEndSession) }],
    after: [{ matcher: matches, handler: createAuthMiddleware(afterEndSession) }],
  };
}
