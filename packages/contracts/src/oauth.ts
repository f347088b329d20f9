import type { TokenFacts } from './revocation.ts';

// What identity (the OAuth provider) and the gateway (the resource server) must agree on: where the
// provider lives, the API's resource identifier (the audience of access tokens), where its signing keys
// are published, the scopes and the custom claims. The SMART scopes and what every scope allows are in
// smart.ts.
export const API_SCOPES = ['simrs:read', 'simrs:write'] as const;

/** Better Auth's base path in identity; also the path of the issuer. */
export const AUTH_BASE_PATH = '/api/auth';

/** Where identity publishes the JWKS that signs access and ID tokens, below its origin. */
export const JWKS_PATH = `${AUTH_BASE_PATH}/jwks`;

/** Better Auth serves the provider under /api/auth, so that is the issuer. */
export function defaultIssuer(publicUrl: string): string {
  return `${new URL(publicUrl).origin}${AUTH_BASE_PATH}`;
}

/** The resource identifier of the SIMRS API (RFC 8707), the `aud` of every API access token. */
export function defaultAudience(publicUrl: string): string {
  return `${new URL(publicUrl).origin}/api`;
}

/** Where the MCP server answers, below the integration prefix. */
export const MCP_PATH = '/mcp';

/**
 * The MCP server's resource identifier (RFC 8707): its canonical URL, the `aud` of the tokens an agent
 * gets for it. A token for the API is not one for the MCP server, nor the other way round.
 */
export function defaultMcpResource(publicUrl: string, integrationPrefix = '/api/v1'): string {
  return `${new URL(publicUrl).origin}${integrationPrefix}${MCP_PATH}`;
}

/** Where a resource's metadata is (RFC 9728 §3.1: the well-known name between the host and the path). */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname === '/' ? '' : url.pathname}`;
}

/** Claims identity adds to API access tokens. */
export const TENANT_CLAIM = 'https://simrs.id/tenant';
export const ROLE_CLAIM = 'https://simrs.id/role';
/** The SMART launch context's patient (a FHIR Patient id), when the token has one. */
export const PATIENT_CLAIM = 'https://simrs.id/patient';
/** The OAuth grant an access token belongs to (one authorization code or device code and every refresh after it): what revoking that grant names. */
export const GRANT_CLAIM = 'https://simrs.id/grant';
/** When identity issued the access token, in epoch milliseconds: what a user-wide revocation's cut-off is compared with. */
export const ISSUED_AT_MS_CLAIM = 'https://simrs.id/iat_ms';

/** The facts a revocation is matched against, read from an access token's (verified) payload. */
export function tokenFacts(payload: Record<string, unknown>): TokenFacts {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const ms = payload[ISSUED_AT_MS_CLAIM];
  return {
    jti: text(payload.jti),
    sub: text(payload.sub),
    clientId: text(payload.azp) ?? text(payload.client_id),
    grantId: text(payload[GRANT_CLAIM]),
    issuedAtMs: typeof ms === 'number' ? ms : typeof payload.iat === 'number' ? payload.iat * 1000 : undefined,
  };
}
