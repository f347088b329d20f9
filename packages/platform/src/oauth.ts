// What identity (the OAuth provider) and the gateway (the resource server) must agree on: the issuer,
// the API's resource identifier (the audience of access tokens), the scopes and the custom claims.
export const API_SCOPES = ['simrs:read', 'simrs:write'] as const;

/** Better Auth serves the provider under /api/auth, so that is the issuer. */
export function defaultIssuer(publicUrl: string): string {
  return `${new URL(publicUrl).origin}/api/auth`;
}

/** The resource identifier of the SIMRS API (RFC 8707), the `aud` of every API access token. */
export function defaultAudience(publicUrl: string): string {
  return `${new URL(publicUrl).origin}/api`;
}

/** Claims identity adds to API access tokens. */
export const TENANT_CLAIM = 'https://simrs.id/tenant';
export const ROLE_CLAIM = 'https://simrs.id/role';
