// identity as the OAuth 2.0 / OIDC provider for integrations and AI agents (Better Auth's
// oauth-provider and its RFC 8628 device grant), with the rules SIMRS adds:
// - registration (RFC 7591) only with an initial access token a tenant administrator issued, or with
//   a tenant administrator's session; the client belongs to that tenant and holds the scopes the
//   administrator allowed (`simrs:write` only when granted);
// - every access token is a JWT (typ at+jwt) for the SIMRS API (aud = API_AUDIENCE), carrying the
//   user's tenant and role, refused for a deactivated user or a user of another tenant;
// - redirect URIs match exactly (no loopback port leeway), PKCE S256 for every client;
// - authorization codes, refresh tokens and device codes are stored as keyed hashes;
// - revocation reaches the gateway: RFC 7009 on an access token publishes its jti, on a refresh token
//   (and on refresh-token reuse, which ends the family) a cutoff for that user and client;
// - guessing device user codes is rate limited per IP and per user.
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthEndpoint, createAuthMiddleware, getSessionFromCtx, sessionMiddleware } from 'better-auth/api';
import { verifyJWT } from 'better-auth/plugins';
import { getOAuthProviderApi } from '@better-auth/oauth-provider';
import type { OAuthOptions, OAuthProviderExtension, Scope } from '@better-auth/oauth-provider';
import type { Logger } from '@simrs/platform/logger';
import { ROLE_CLAIM, TENANT_CLAIM } from '@simrs/contracts/oauth';
import { SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import { z } from 'zod';
import type { Admin } from './admin.ts';
import { PAGES } from './auth.ts';
import type { Config } from './config.ts';
import type { Directory } from './directory.ts';
import { HTTP_STATUS, IdentityError } from './errors.ts';
import { hmac } from './keys.ts';
import type { Keys } from './keys.ts';
import type { Limits } from './limits.ts';
import type { OAuthClients } from './oauth-clients.ts';
import { clientIp, limited } from './plugin.ts';
import type { Ctx } from './plugin.ts';
import { CLIENT_BASE_SCOPES, TOKEN_PREFIX } from './registration-tokens.ts';
import type { RegistrationGrant, RegistrationTokens } from './registration-tokens.ts';
import type { Revocations } from './revocations.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const OAUTH_SCOPES = ['openid', 'profile', 'email', 'offline_access', SCOPE_READ, SCOPE_WRITE];

/** What the consent and device pages say each scope lets the application do. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Know who you are (your SIMRS account id)',
  profile: 'See your name',
  email: 'See your e-mail address',
  offline_access: 'Stay connected while you are away (refresh tokens)',
  [SCOPE_READ]: "Read your hospital's records (patients), as your role allows",
  [SCOPE_WRITE]: "Create and change your hospital's records, as your role allows",
};

export interface OAuthDeps {
  config: Config;
  keys: Keys;
  directory: Directory;
  limits: Limits;
  revocations: Revocations;
  registrationTokens: RegistrationTokens;
  oauthClients: OAuthClients;
  admin: () => Admin;
  log: Logger;
}

/** Keyed hash under which authorization codes, refresh tokens and device codes are stored. */
export const hashOAuthToken = (keys: Keys, token: string, type: string) => hmac(keys.oauthToken, `${type}:${token}`);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const returnedError = (ctx: Ctx) => {
  const returned = ctx.context.returned;
  return returned instanceof Error || !isPlainObject(returned) ? undefined : returned;
};

/** A bounded, short-lived map that hands state from a before hook to the code that runs after it. */
class Handover<T> {
  private readonly entries = new Map<string, { value: T; at: number }>();
  set(key: string, value: T): void {
    if (this.entries.size > 10_000) this.sweep();
    this.entries.set(key, { value, at: Date.now() });
  }
  get(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }
  take(key: string): T | undefined {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry?.value;
  }
  private sweep(): void {
    const cutoff = Date.now() - 60_000;
    for (const [key, entry] of this.entries) if (entry.at < cutoff) this.entries.delete(key);
  }
}

function bearer(headers: Headers | undefined): string | undefined {
  const value = headers?.get('authorization');
  const match = value ? /^Bearer +(\S+)$/i.exec(value) : null;
  return match?.[1];
}

/** The oauth-provider plugin's resolved options (its defaults applied), for its server-side API. */
function providerOptions(ctx: Ctx): OAuthOptions<Scope[]> {
  const plugin = (ctx.context as unknown as { getPlugin(id: string): { options?: OAuthOptions<Scope[]> } | undefined }).getPlugin('oauth-provider');
  if (!plugin?.options) throw new APIError('INTERNAL_SERVER_ERROR', { error: 'server_error', error_description: 'oauth provider missing' });
  return plugin.options;
}

const oauthError = (status: 'BAD_REQUEST' | 'UNAUTHORIZED' | 'FORBIDDEN', error: string, description: string, headers?: Record<string, string>) =>
  new APIError(status, { error, error_description: description }, headers);

/** The SIMRS rules for the OAuth provider; `state` is shared with the hooks of `oauthPlugin`. */
export function createOAuth(deps: OAuthDeps) {
  const { config, keys } = deps;
  const audience = config.API_AUDIENCE;
  /** Registration tokens consumed by a registration in flight, by token. */
  const registrations = new Handover<RegistrationGrant>();
  /** Device codes as handed to the device (raw), by the keyed hash that is stored. */
  const deviceCodes = new Handover<string>();

  const claimsExtension: OAuthProviderExtension = {
    claims: {
      // Every access token names the user's tenant and role; none is issued to a deactivated user or
      // for a client of another tenant (this covers the code, refresh and device grants alike).
      async accessToken({ user, client }) {
        if (!user) throw oauthError('BAD_REQUEST', 'unauthorized_client', 'tokens are issued for users only');
        const u = user as Record<string, unknown>;
        if (u.active !== true) throw oauthError('BAD_REQUEST', 'invalid_grant', 'the account is deactivated');
        if (!client.referenceId || client.referenceId !== u.tenantId)
          throw oauthError('BAD_REQUEST', 'invalid_grant', "the client does not belong to the user's hospital");
        return { [TENANT_CLAIM]: u.tenantId, [ROLE_CLAIM]: u.role };
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

  const providerOptionsInput = {
    loginPage: PAGES.signIn,
    consentPage: PAGES.consent,
    scopes: OAUTH_SCOPES,
    clientRegistrationDefaultScopes: [...CLIENT_BASE_SCOPES],
    clientRegistrationAllowedScopes: [SCOPE_WRITE],
    allowDynamicClientRegistration: true,
    allowUnauthenticatedClientRegistration: false,
    validateInitialAccessToken: ({ initialAccessToken }: { initialAccessToken: string }) => {
      const grant = registrations.get(initialAccessToken);
      return grant ? { referenceId: grant.tenantId } : false;
    },
    // A session may register clients only when it is an active tenant administrator's; the client then
    // belongs to that administrator's tenant. Nothing else of the client API is offered (http.ts).
    clientPrivileges: ({ action, user }: { action: string; user?: Record<string, unknown> }) =>
      action === 'create' && user?.role === 'tenant_admin' && user.active === true,
    clientReference: ({ user }: { user?: Record<string, unknown> }) => (typeof user?.tenantId === 'string' ? user.tenantId : undefined),
    grantTypes: ['authorization_code', 'refresh_token'],
    accessTokenExpiresIn: config.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenExpiresIn: config.REFRESH_TOKEN_TTL_SECONDS,
    resources: [{ identifier: audience, name: 'SIMRS API', accessTokenTtl: config.ACCESS_TOKEN_TTL_SECONDS }],
    resourceSeedMode: 'overwrite' as const,
    // The one resource is configuration, not data: no database read per token for it. Every client is
    // linked to it at registration, so the per-client link is not read back on each token either.
    cachedResources: new Set([audience]),
    enforcePerClientResources: false,
    clientRegistrationDefaultResources: [audience],
    storeTokens: { hash: (token: string, type: string) => hashOAuthToken(keys, token, type) },
    extensions: [claimsExtension],
    advertisedMetadata: {
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'sid', 'scope', 'azp', 'name', 'email', 'email_verified', TENANT_CLAIM, ROLE_CLAIM],
    },
    rateLimit: {
      token: { window: 60, max: config.TOKEN_LIMIT_PER_IP_PER_MINUTE },
      authorize: { window: 60, max: 120 },
      introspect: { window: 60, max: config.TOKEN_LIMIT_PER_IP_PER_MINUTE },
      revoke: { window: 60, max: 120 },
      register: { window: 60, max: 30 },
      userinfo: { window: 60, max: 600 },
    },
  };

  const deviceOptions = {
    verificationUri: `${config.PUBLIC_URL}${PAGES.device}`,
    expiresIn: `${config.DEVICE_CODE_TTL_SECONDS}s` as `${number}s`,
    interval: `${config.DEVICE_POLL_INTERVAL_SECONDS}s` as `${number}s`,
    // The device gets a random code; Postgres keeps only its keyed hash (swapped back in the answer).
    generateDeviceCode: () => {
      const raw = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
      const stored = hashOAuthToken(keys, raw, 'device_code');
      deviceCodes.set(stored, raw);
      return stored;
    },
  };

  return { providerOptions: providerOptionsInput, deviceOptions, plugin: oauthPlugin(deps, { registrations, deviceCodes }) };
}

/** A device code record by what a person typed (case and separators ignored, as Better Auth does). */
async function findDeviceCode(ctx: Ctx, userCode: string): Promise<Record<string, unknown> | null> {
  const normalized = userCode.replace(/[^a-zA-Z0-9]/g, '').toUpperCase();
  if (!normalized || normalized.length > 64) return null;
  return ctx.context.adapter.findOne<Record<string, unknown>>({ model: 'deviceCode', where: [{ field: 'userCode', value: normalized }] });
}

function oauthPlugin(deps: OAuthDeps, state: { registrations: Handover<RegistrationGrant>; deviceCodes: Handover<string> }) {
  const { config, keys, registrationTokens, oauthClients, revocations, log } = deps;
  const { registrations, deviceCodes } = state;
  const audience = config.API_AUDIENCE;
  const issuer = `${config.PUBLIC_URL}/api/auth`;

  /** Registration by token: the grant is consumed here and the scopes checked before anything is created. */
  async function beforeRegister(ctx: Ctx): Promise<void> {
    const session = await getSessionFromCtx(ctx);
    if (session) {
      const user = session.user as Record<string, unknown>;
      if (user.role !== 'tenant_admin' || user.active !== true)
        throw oauthError('FORBIDDEN', 'access_denied', 'Only a tenant administrator may register OAuth clients.');
      return;
    }
    const token = bearer(ctx.headers);
    if (!token) return; // the endpoint answers 401
    const grant = token.startsWith(TOKEN_PREFIX) ? await registrationTokens.consume(token) : undefined;
    if (!grant) throw oauthError('UNAUTHORIZED', 'invalid_token', 'Invalid initial access token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    const body = isPlainObject(ctx.body) ? ctx.body : {};
    const requested = typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [];
    const refused = requested.filter((s) => !grant.scopes.includes(s));
    if (refused.length) {
      await registrationTokens.restore(token, grant);
      throw oauthError('BAD_REQUEST', 'invalid_client_metadata', `the registration token does not allow the scope(s): ${refused.join(', ')}`);
    }
    registrations.set(token, grant);
  }

  /** The client holds what was asked for within what was granted; the answer says so. */
  async function afterRegister(ctx: Ctx) {
    const token = bearer(ctx.headers);
    const grant = token ? registrations.take(token) : undefined;
    const created = returnedError(ctx);
    if (!created || typeof created.client_id !== 'string') {
      if (token && grant) await registrationTokens.restore(token, grant);
      return;
    }
    const body = isPlainObject(ctx.body) ? ctx.body : {};
    const requested = typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [];
    const scopes = requested.length ? [...new Set(requested)] : grant ? grant.scopes : [...CLIENT_BASE_SCOPES];
    await oauthClients.completeRegistration(created.client_id, scopes);
    log.info({ clientId: created.client_id, tenantId: created.reference_id ?? grant?.tenantId, scopes, by: grant ? 'token' : 'session' }, 'oauth client registered');
    return ctx.json({ ...created, scope: scopes.join(' ') }, { status: 201 });
  }

  /** Exact redirect URIs, PKCE with S256, and the API as the resource when none is named. */
  async function beforeAuthorize(ctx: Ctx): Promise<void> {
    const params = (ctx.method === 'POST' ? ctx.body : ctx.query) as Record<string, unknown> | undefined;
    if (!isPlainObject(params) || typeof params.client_id !== 'string') return;
    if (params.request_uri !== undefined) return; // not supported: the endpoint refuses it
    if (typeof params.redirect_uri === 'string') {
      const client = await oauthClients.find(params.client_id);
      if (client && !client.redirectUris.includes(params.redirect_uri)) {
        const url = new URL(`${issuer}/error`);
        url.searchParams.set('error', 'invalid_redirect');
        url.searchParams.set('error_description', 'redirect_uri does not match a registered redirect URI exactly');
        throw ctx.redirect(url.toString());
      }
    }
    if (params.resource === undefined || params.resource === '') params.resource = audience;
  }

  /** A client on a device never names the resource or, often, the scopes: the API and its client's. */
  async function afterDeviceCode(ctx: Ctx) {
    const answer = returnedError(ctx);
    if (!answer || typeof answer.device_code !== 'string') return;
    const stored = answer.device_code;
    const raw = deviceCodes.take(stored);
    const body = isPlainObject(ctx.body) ? ctx.body : {};
    if (typeof body.scope !== 'string' || !body.scope.trim()) {
      const record = await ctx.context.adapter.findOne<{ oauthClientId?: string }>({ model: 'deviceCode', where: [{ field: 'deviceCode', value: stored }] });
      const client = record?.oauthClientId ? await oauthClients.find(record.oauthClientId) : undefined;
      if (client) await ctx.context.adapter.update({ model: 'deviceCode', where: [{ field: 'deviceCode', value: stored }], update: { scope: client.scopes.join(' ') } });
    }
    if (!raw) throw oauthError('BAD_REQUEST', 'server_error', 'device code unavailable, try again');
    return ctx.json({ ...answer, device_code: raw });
  }

  /** Looking up, approving or denying a user code: rate limited, and only within the client's tenant. */
  async function beforeDeviceVerification(ctx: Ctx): Promise<void> {
    // No method on a server-side call (the verification page's): read both places.
    const source = { ...(isPlainObject(ctx.query) ? ctx.query : {}), ...(isPlainObject(ctx.body) ? ctx.body : {}) };
    const userCode = source.user_code ?? source.userCode;
    if (typeof userCode !== 'string') return;
    const session = await getSessionFromCtx(ctx);
    await limited(() => deps.limits.deviceCode(clientIp(ctx), session?.user.id));
    if (!session) return; // the endpoint answers (GET: status only; approve/deny: 401)
    const record = await findDeviceCode(ctx, userCode);
    const clientId = typeof record?.oauthClientId === 'string' ? record.oauthClientId : undefined;
    if (!clientId) return; // the endpoint answers invalid_request
    const client = await oauthClients.find(clientId);
    if (!client || client.tenantId !== (session.user as Record<string, unknown>).tenantId)
      throw oauthError('FORBIDDEN', 'access_denied', 'This device request comes from an application of another hospital.');
  }

  /** Only a user of the client's hospital may allow it (the consent page offers only Deny otherwise). */
  async function beforeConsent(ctx: Ctx): Promise<void> {
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!isPlainObject(body) || body.accept !== true || typeof body.oauth_query !== 'string') return;
    const clientId = new URLSearchParams(body.oauth_query).get('client_id');
    const session = await getSessionFromCtx(ctx);
    if (!clientId || !session) return; // the endpoint answers
    const client = await oauthClients.find(clientId);
    if (client && client.tenantId !== (session.user as Record<string, unknown>).tenantId)
      throw oauthError('FORBIDDEN', 'access_denied', 'This application belongs to another hospital.');
  }

  /** Reusing a rotated (or revoked) refresh token ends its family; the gateway hears it too. */
  async function beforeToken(ctx: Ctx): Promise<void> {
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!isPlainObject(body)) return;
    if (body.grant_type === DEVICE_CODE_GRANT && typeof body.device_code === 'string') {
      body.device_code = hashOAuthToken(keys, body.device_code, 'device_code');
      return;
    }
    if (body.grant_type !== 'refresh_token' || typeof body.refresh_token !== 'string') return;
    const row = await ctx.context.adapter.findOne<{ revoked?: Date | null; userId: string; clientId?: string }>({
      model: 'oauthRefreshToken',
      where: [{ field: 'token', value: hashOAuthToken(keys, body.refresh_token, 'refresh_token') }],
    });
    if (!row?.revoked || !row.clientId) return;
    const { client } = await getOAuthProviderApi(ctx, providerOptions(ctx)).authenticateClient({ requireCredentials: false });
    if (client.clientId !== row.clientId) return;
    log.warn({ clientId: row.clientId, userId: row.userId }, 'refresh token reused: the grant family is revoked');
    await revocations.publish({ userId: row.userId, clientId: row.clientId });
  }

  /**
   * RFC 7009. A JWT access token cannot be deleted: its jti goes to the gateway's deny list (Better
   * Auth would answer unsupported_token_type). A refresh token is revoked by Better Auth; the access
   * tokens of that user and client issued until now are cut off at the gateway.
   */
  async function beforeRevoke(ctx: Ctx) {
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!isPlainObject(body) || typeof body.token !== 'string' || !body.token) return;
    const token = body.token.replace(/^Bearer\s+/i, '');
    const { client } = await getOAuthProviderApi(ctx, providerOptions(ctx)).authenticateClient({ requireCredentials: false });
    if (token.split('.').length === 3) {
      const payload = await verifyJWT(token, { jwt: { issuer, audience } });
      if (payload && payload.azp === client.clientId && typeof payload.jti === 'string') {
        await revocations.publish({ tokenIds: [payload.jti] });
        log.info({ clientId: client.clientId }, 'access token revoked');
      }
      // RFC 7009 §2.2: an invalid or foreign token is answered like a revoked one.
      return ctx.json(null);
    }
    if (body.token_type_hint === 'access_token') return;
    const row = await ctx.context.adapter.findOne<{ userId: string; clientId?: string; revoked?: Date | null }>({
      model: 'oauthRefreshToken',
      where: [{ field: 'token', value: hashOAuthToken(keys, token, 'refresh_token') }],
    });
    if (!row) return ctx.json(null); // RFC 7009 §2.2: an unknown token is not an error
    // Revoking it again changes nothing: publishing again would only grow every gateway's deny list.
    if (row.revoked) return ctx.json(null);
    if (row.clientId === client.clientId) {
      await revocations.publish({ userId: row.userId, clientId: row.clientId });
      log.info({ clientId: client.clientId }, 'refresh token revoked');
    }
  }

  /** Introspection and userinfo also know what identity revoked and who was deactivated. */
  async function stillValid(payload: Record<string, unknown>): Promise<boolean> {
    const sub = typeof payload.sub === 'string' ? payload.sub : undefined;
    const clientId = typeof payload.azp === 'string' ? payload.azp : typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const claims = { jti: typeof payload.jti === 'string' ? payload.jti : undefined, sub, clientId, iat: typeof payload.iat === 'number' ? payload.iat : undefined };
    if (await revocations.isRevoked(claims)) return false;
    const user = sub ? await deps.directory.findUserById(sub) : undefined;
    return user?.active === true;
  }

  async function afterIntrospect(ctx: Ctx) {
    const answer = returnedError(ctx);
    if (!answer || answer.active !== true) return;
    if (!(await stillValid(answer))) return ctx.json({ active: false });
  }

  async function beforeUserInfo(ctx: Ctx): Promise<void> {
    const token = bearer(ctx.headers);
    if (!token || token.split('.').length !== 3) return;
    const payload = decodePayload(token);
    if (payload && !(await stillValid(payload)))
      throw oauthError('UNAUTHORIZED', 'invalid_token', 'the access token was revoked', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }

  const matches = (path: string) => (ctx: { path?: string }) => ctx.path === path;
  const admin = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (err instanceof IdentityError) throw new APIError(HTTP_STATUS[err.kind], { code: err.kind.toUpperCase(), message: err.message });
      throw err;
    }
  };

  return {
    id: 'simrs-oauth',
    endpoints: {
      // A tenant administrator's session issues initial access tokens (the CLI does the same over gRPC).
      tenantRegistrationToken: createAuthEndpoint(
        '/tenant/registration-tokens',
        {
          method: 'POST',
          use: [sessionMiddleware],
          body: z.object({ allowWrite: z.boolean().optional(), ttlSeconds: z.number().int().positive().optional() }),
        },
        async (ctx) => {
          const issued = await admin(() =>
            deps.admin().issueRegistrationToken({ userId: ctx.context.session.user.id }, { allowWrite: ctx.body.allowWrite === true, ttlSeconds: ctx.body.ttlSeconds }),
          );
          ctx.setHeader('Cache-Control', 'no-store');
          return ctx.json({ token: issued.token, tenantId: issued.tenantId, scopes: issued.scopes, expiresAt: new Date(issued.expiresAt).toISOString() });
        },
      ),
      tenantOAuthClients: createAuthEndpoint('/tenant/oauth-clients', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
        const clients = await admin(() => deps.admin().listOAuthClients({ userId: ctx.context.session.user.id }));
        return ctx.json({ clients });
      }),
    },
    hooks: {
      before: [
        { matcher: matches('/oauth2/register'), handler: createAuthMiddleware(beforeRegister) },
        { matcher: matches('/oauth2/authorize'), handler: createAuthMiddleware(beforeAuthorize) },
        { matcher: matches('/oauth2/consent'), handler: createAuthMiddleware(beforeConsent) },
        { matcher: matches('/oauth2/token'), handler: createAuthMiddleware(beforeToken) },
        { matcher: matches('/oauth2/revoke'), handler: createAuthMiddleware(beforeRevoke) },
        { matcher: matches('/oauth2/userinfo'), handler: createAuthMiddleware(beforeUserInfo) },
        {
          matcher: (ctx) => ctx.path === '/device' || ctx.path === '/device/approve' || ctx.path === '/device/deny',
          handler: createAuthMiddleware(beforeDeviceVerification),
        },
        {
          // The device code endpoint normally names the API; a request that does not gets it.
          matcher: matches('/device/code'),
          handler: createAuthMiddleware(async (ctx) => {
            if (isPlainObject(ctx.body) && (ctx.body.resource === undefined || ctx.body.resource === '')) ctx.body.resource = audience;
          }),
        },
      ],
      after: [
        { matcher: matches('/oauth2/register'), handler: createAuthMiddleware(afterRegister) },
        { matcher: matches('/device/code'), handler: createAuthMiddleware(afterDeviceCode) },
        { matcher: matches('/oauth2/introspect'), handler: createAuthMiddleware(afterIntrospect) },
      ],
    },
  } satisfies BetterAuthPlugin;
}

/** The payload of a compact JWS, unverified (the caller has verified it or only reads ids from it). */
export function decodePayload(token: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
