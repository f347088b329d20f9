// identity as the OAuth 2.0 / OIDC provider: the provider's options and SIMRS's rules on its endpoints
// (provider.ts, hooks.ts), the OAuth clients as identity reads them, initial access tokens for client
// registration, rotating the token signing key, and removing spent client assertions.
export { startExpirySweep, sweepExpiredRows } from './expiry-sweep.ts';
export { createOAuthClients } from './oauth-clients.ts';
export type { OAuthClientInfo, OAuthClients } from './oauth-clients.ts';
export { createOAuth } from './provider.ts';
export { createRegistrationTokens } from './registration-tokens.ts';
export type { IssuedRegistrationToken, RegistrationTokens } from './registration-tokens.ts';
export { cachedKeySet, ensureSigningKeys, rotateSigningKey } from './signing-keys.ts';
export { withCorrectDiscovery } from './discovery.ts';
export { SIGNING_KEY_CONFIGS } from './id-tokens.ts';
export { keptRowsDatabase } from './rows-per-request.ts';
