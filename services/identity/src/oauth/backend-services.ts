// SMART Backend Services: a system (a data warehouse, a registry) obtains an access token for itself
// with the client-credentials grant, authenticating with a JWT it signs with its own private key
// (RFC 7523 `private_key_jwt`). Better Auth's provider verifies the assertion through its public token
// endpoint: signature against the client's registered JWKS (inline, or fetched from its JWKS URL),
// `iss` = `sub` = client id, `exp` present, unexpired and at most `assertionMaxLifetime` (300 s) ahead,
// `jti` single use; a client registered for private_key_jwt cannot present a secret instead, and
// `none` or HMAC algorithms are refused. The `jti` is spent as a row whose primary key is a digest of
// (client, jti) in identity's Postgres database (the provider's `oauthClientAssertion` table): the
// insert is atomic across every identity replica and outlives a Redis flush, so a second store in
// Redis would only be a second implementation of the same rule. What SIMRS adds here, before the
// provider sees the request:
// - the assertion's `aud` must be the token endpoint itself (the provider also accepts its issuer);
// - a `jku` header must be the JWKS URL the administrator registered (a client with inline keys
//   names none): the keys come from registration, never from the assertion;
// - the algorithm is one of those discovery advertises (RS384, ES384);
// - the token names the API as its resource when the request does not.
// Registration: only a tenant administrator (their session, or an initial access token they issued)
// registers such a client, with keys, the client-credentials grant alone and `system/` scopes alone;
// those scopes become its client-credentials ceiling. Its tokens name the client's hospital and the
// backend-service role (provider.ts), and live BACKEND_ACCESS_TOKEN_TTL_SECONDS.
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { BACKEND_ASSERTION_ALGS, isSystemScope } from '@simrs/contracts/smart';
import type { Ctx } from '../signin/index.ts';
import type { OAuthClients } from './oauth-clients.ts';
import { isPlainObject, oauthError } from './tokens.ts';

export const CLIENT_CREDENTIALS = 'client_credentials';
const PRIVATE_KEY_JWT = 'private_key_jwt';

const invalidClient = (description: string) => oauthError('UNAUTHORIZED', 'invalid_client', description);
const invalidMetadata = (description: string) => oauthError('BAD_REQUEST', 'invalid_client_metadata', description);

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const scopesOf = (body: Record<string, unknown>): string[] => (typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : []);

/** Whether a registration asks for a backend service: signed-JWT authentication or the client-credentials grant. */
export function isBackendRegistration(body: unknown): boolean {
  if (!isPlainObject(body)) return false;
  return body.token_endpoint_auth_method === PRIVATE_KEY_JWT || strings(body.grant_types).includes(CLIENT_CREDENTIALS);
}

/**
 * A backend service's registration is all of a piece: keys and private_key_jwt, the client-credentials
 * grant alone, no redirect, and `system/` scopes alone (at least one). A registration that is not a
 * backend service's may not name a `system/` scope.
 */
export function checkBackendRegistration(body: unknown): void {
  if (!isPlainObject(body)) return;
  const scopes = scopesOf(body);
  if (!isBackendRegistration(body)) {
    if (scopes.some(isSystemScope)) throw invalidMetadata('system/ scopes are for backend services (private_key_jwt, client_credentials)');
    return;
  }
  if (body.token_endpoint_auth_method !== PRIVATE_KEY_JWT)
    throw invalidMetadata('the client_credentials grant needs token_endpoint_auth_method private_key_jwt');
  const grants = strings(body.grant_types);
  if (grants.length !== 1 || grants[0] !== CLIENT_CREDENTIALS)
    throw invalidMetadata('a backend service uses the client_credentials grant alone');
  if (strings(body.redirect_uris).length) throw invalidMetadata('a backend service has no redirect_uris');
  if (body.jwks === undefined && body.jwks_uri === undefined) throw invalidMetadata('private_key_jwt needs jwks or jwks_uri');
  if (!scopes.length || !scopes.every(isSystemScope)) throw invalidMetadata('a backend service asks for system/ scopes, and only those');
  // Better Auth defaults an absent list to the code flow's `code`; a backend service has no front channel.
  body.response_types = [];
}

/** The client named by an assertion, the way the provider resolves it (`sub`, else `iss`). */
function claimsOf(assertion: string): { header: ProtectedHeaderParameters; payload: JWTPayload } {
  try {
    return { header: decodeProtectedHeader(assertion), payload: decodeJwt(assertion) };
  } catch {
    throw invalidClient('malformed client assertion');
  }
}

export function createBackendServices(deps: { oauthClients: OAuthClients; apiAudience: string }) {
  /** SIMRS's assertion rules on top of the provider's (header comment); before the provider consumes the jti. */
  async function checkAssertion(ctx: Ctx, body: Record<string, unknown>): Promise<void> {
    if (typeof body.client_assertion !== 'string') return; // the provider answers
    const { header, payload } = claimsOf(body.client_assertion);
    if (!(BACKEND_ASSERTION_ALGS as readonly string[]).includes(header.alg ?? ''))
      throw invalidClient(`the client assertion must be signed with ${BACKEND_ASSERTION_ALGS.join(' or ')}`);
    const tokenEndpoint = `${ctx.context.baseURL}/oauth2/token`;
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.includes(tokenEndpoint)) throw invalidClient('the client assertion aud must be the token endpoint');
    const clientId = payload.sub ?? payload.iss;
    if (header.jku !== undefined) {
      const registered = typeof clientId === 'string' ? await deps.oauthClients.jwksUri(clientId) : undefined;
      if (!registered || header.jku !== registered) throw invalidClient('the client assertion jku is not the registered JWKS URL');
    }
  }

  /** Before the token endpoint: a client-credentials request is a backend service's. */
  async function beforeClientCredentials(ctx: Ctx, body: Record<string, unknown>): Promise<void> {
    await checkAssertion(ctx, body);
    if (body.resource === undefined || body.resource === '') body.resource = deps.apiAudience;
  }

  return { checkAssertion, beforeClientCredentials };
}

export type BackendServices = ReturnType<typeof createBackendServices>;
