// identity as the OAuth 2.0 / OIDC provider for integrations and AI agents (Better Auth's
// oauth-provider and its RFC 8628 device grant), with the rules SIMRS adds:
// - registration (RFC 7591) only with an initial access token a tenant administrator issued, or with
//   a tenant administrator's session; the client belongs to that tenant and holds the scopes the
//   administrator allowed (`simrs:write` only when granted; SMART scopes within the same grant);
// - every access token is a JWT (typ at+jwt) for the SIMRS API (aud = API_AUDIENCE), carrying the
//   user's tenant and role, signed EdDSA unless ACCESS_TOKEN_SIGNING_ALG says otherwise, refused for a deactivated user or a user of
//   another tenant;
// - redirect URIs match exactly (no loopback port leeway), PKCE S256 for every client;
// - authorization codes, refresh tokens and device codes are stored as keyed hashes;
// - revocation reaches the gateway: RFC 7009 on an access token publishes its jti, on a refresh token
//   (and on refresh-token reuse or a replayed code) its grant, named in every access token (grants.ts);
// - ID tokens in RS256 unless the client registered another algorithm (id-tokens.ts);
// - guessing device user codes is rate limited per IP and per user.
import type { OAuthProviderExtension } from '@better-auth/oauth-provider';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { PATIENT_CLAIM, ROLE_CLAIM, TENANT_CLAIM } from '@simrs/contracts/oauth';
import { SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import { BACKEND_SERVICE_ROLE, LAUNCH_PATIENT_SCOPE, SMART_SCOPES, SYSTEM_SCOPES } from '@simrs/contracts/smart';
import { createGrants } from './grants.ts';
import type { Grants } from './grants.ts';
import { oauthPlugin, providerOptions } from './hooks.ts';
import { createLaunch } from './launch.ts';
import type { Launch } from './launch.ts';
import { createPar } from './par.ts';
import type { OAuthDeps } from './hooks.ts';
import type { Config } from '../config.ts';
import { CLIENT_BASE_SCOPES } from './registration-tokens.ts';
import type { RegistrationGrant } from './registration-tokens.ts';
import { Handover, hashClientSecret, hashOAuthToken, oauthError } from './tokens.ts';

/** The seed's scopes, then SMART App Launch v2 scopes for the FHIR Patient API and its launch context (@simrs/contracts/smart). */
export const OAUTH_SCOPES = [
  'openid',
  'profile',
  'email',
  'offline_access',
  SCOPE_READ,
  SCOPE_WRITE,
  ...SMART_SCOPES,
  LAUNCH_PATIENT_SCOPE,
  ...SYSTEM_SCOPES,
];

/**
 * Every access token names the user's tenant and role; none is issued to a deactivated user or for a
 * client of another tenant (this covers the code, refresh and device grants alike). A grant with
 * `launch/patient` names its launch patient too (launch.ts).
 */
function claimsExtension(grants: Grants, launch: Launch): OAuthProviderExtension {
  return {
    claims: {
      async accessToken({ ctx, user, client, scopes }) {
        if (!user) return backendServiceClaims(client);
        const u = user as Record<string, unknown>;
        if (u.active !== true) throw oauthError('BAD_REQUEST', 'invalid_grant', 'the account is deactivated');
        if (!client.referenceId || client.referenceId !== u.tenantId)
          throw oauthError('BAD_REQUEST', 'invalid_grant', "the client does not belong to the user's hospital");
        const origin = await grants.originOf(ctx as never);
        const patientId = await launch.patientOf(ctx as never, origin, scopes);
        return {
          [TENANT_CLAIM]: u.tenantId,
          [ROLE_CLAIM]: u.role,
          ...(patientId ? { [PATIENT_CLAIM]: patientId } : {}),
          ...grants.accessTokenClaims(origin),
        };
      },
      async idToken({ user }) {
        const u = (user ?? {}) as Record<string, unknown>;
        return { [TENANT_CLAIM]: u.tenantId, [ROLE_CLAIM]: u.role };
      },
      async userInfo({ user }) {
        return { [TENANT_CLAIM]: user.tenantId, [ROLE_CLAIM]: user.role };
      },
    },
  };
}

/**
 * A token without a user is a backend service's (client credentials, backend-services.ts): it names the
 * hospital the client was registered for and the backend-service role, never a staff role.
 */
function backendServiceClaims(client: { tokenEndpointAuthMethod?: string | null; referenceId?: string | null }) {
  if (client.tokenEndpointAuthMethod !== 'private_key_jwt' || !client.referenceId)
    throw oauthError('BAD_REQUEST', 'unauthorized_client', 'only backend services registered with keys obtain tokens for themselves');
  return { [TENANT_CLAIM]: client.referenceId, [ROLE_CLAIM]: BACKEND_SERVICE_ROLE };
}

const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'sid',
  'scope',
  'azp',
  'name',
  'email',
  'email_verified',
  TENANT_CLAIM,
  ROLE_CLAIM,
  PATIENT_CLAIM,
];

const rateLimits = (config: Config) => ({
  token: { window: 60, max: config.TOKEN_LIMIT_PER_IP_PER_MINUTE },
  authorize: { window: 60, max: 120 },
  introspect: { window: 60, max: config.TOKEN_LIMIT_PER_IP_PER_MINUTE },
  revoke: { window: 60, max: 120 },
  register: { window: 60, max: 30 },
  userinfo: { window: 60, max: 600 },
});

/** Who may register a client, with which scopes, and which tenant it belongs to. */
function registrationOptions(registrations: Handover<RegistrationGrant>) {
  return {
    clientRegistrationDefaultScopes: [...CLIENT_BASE_SCOPES],
    // Beyond the defaults a registration may name simrs:write and SMART scopes; the registration token
    // (or the administrator's session) decides which of them (hooks.ts, registration-tokens.ts).
    clientRegistrationAllowedScopes: [SCOPE_WRITE, ...SMART_SCOPES, LAUNCH_PATIENT_SCOPE, ...SYSTEM_SCOPES],
    allowDynamicClientRegistration: true,
    allowUnauthenticatedClientRegistration: false,
    validateInitialAccessToken: ({ initialAccessToken }: { initialAccessToken: string }) => {
      const grant = registrations.get(initialAccessToken);
      return grant ? { referenceId: grant.tenantId } : false;
    },
    // A session may register clients only when it is an active tenant administrator's; the client then
    // belongs to that administrator's tenant. Nothing else of the client API is offered (server/http.ts).
    clientPrivileges: ({ action, user }: { action: string; user?: Record<string, unknown> }) =>
      action === 'create' && user?.role === 'tenant_admin' && user.active === true,
    clientReference: ({ user }: { user?: Record<string, unknown> }) => (typeof user?.tenantId === 'string' ? user.tenantId : undefined),
  };
}

/**
 * The two resources (RFC 8707) tokens are issued for: the API, and the MCP server agents use. Both in
 * their own algorithm (id-tokens.ts), whatever the ID tokens use; a token names the one its request
 * named (the API when none is named), and the gateway accepts it only there.
 */
function resourceOptions(config: Config) {
  const audience = config.API_AUDIENCE;
  const resource = (identifier: string, name: string) => ({
    identifier,
    name,
    accessTokenTtl: config.ACCESS_TOKEN_TTL_SECONDS,
    signingAlgorithm: config.ACCESS_TOKEN_SIGNING_ALG,
  });
  return {
    resources: [resource(audience, 'SIMRS API'), resource(config.MCP_RESOURCE, 'SIMRS MCP server')],
    resourceSeedMode: 'overwrite' as const,
    // The resources are configuration, not data: no database read per token for them. Any client of the
    // hospital may ask for either (the consent page names the client and the scopes).
    cachedResources: new Set([audience, config.MCP_RESOURCE]),
    enforcePerClientResources: false,
    clientRegistrationDefaultResources: [audience],
  };
}

/** RFC 8628: the device gets a random code; Postgres keeps only its keyed hash (swapped back in the answer). */
function deviceOptionsFor({ config, keys }: OAuthDeps, deviceCodes: Handover<string>) {
  return {
    verificationUri: `${config.PUBLIC_URL}${DASHBOARD.device}`,
    expiresIn: `${config.DEVICE_CODE_TTL_SECONDS}s` as `${number}s`,
    interval: `${config.DEVICE_POLL_INTERVAL_SECONDS}s` as `${number}s`,
    generateDeviceCode: () => {
      const raw = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
      const stored = hashOAuthToken(keys, raw, 'device_code');
      deviceCodes.set(stored, raw);
      return stored;
    },
  };
}

/** The SIMRS rules for the OAuth provider; `state` is shared with the hooks of `oauthPlugin`. */
export function createOAuth(deps: OAuthDeps) {
  const { config, keys } = deps;
  /** Registration tokens consumed by a registration in flight, by token. */
  const registrations = new Handover<RegistrationGrant>();
  /** Device codes as handed to the device (raw), by the keyed hash that is stored. */
  const deviceCodes = new Handover<string>();
  const par = createPar({ storage: deps.storage, oauthClients: deps.oauthClients, providerOptions });
  const grants = createGrants({
    keys,
    storage: deps.storage,
    revocations: deps.revocations,
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
  });
  const launch = createLaunch({ keys, grantTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS });

  const providerOptionsInput = {
    // The dashboard's pages (identity serves none): the sign-in page continues the signed request, the
    // consent page answers it through /oauth2/consent.
    loginPage: DASHBOARD.signIn,
    consentPage: DASHBOARD.consent,
    scopes: OAUTH_SCOPES,
    ...registrationOptions(registrations),
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    accessTokenExpiresIn: config.ACCESS_TOKEN_TTL_SECONDS,
    m2mAccessTokenExpiresIn: config.BACKEND_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenExpiresIn: config.REFRESH_TOKEN_TTL_SECONDS,
    ...resourceOptions(config),
    storeTokens: { hash: (token: string, type: string) => hashOAuthToken(keys, token, type) },
    storeClientSecret: { hash: hashClientSecret },
    extensions: [claimsExtension(grants, launch)],
    advertisedMetadata: { claims_supported: CLAIMS_SUPPORTED },
    rateLimit: rateLimits(config),
  };

  return {
    providerOptions: providerOptionsInput,
    deviceOptions: deviceOptionsFor(deps, deviceCodes),
    plugin: oauthPlugin(deps, { registrations, deviceCodes, grants, par, launch }),
    parPlugin: par.plugin,
  };
}
