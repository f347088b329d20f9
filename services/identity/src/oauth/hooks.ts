// SIMRS's rules on the OAuth provider's endpoints, as Better Auth hooks: registration by an initial
// access token or a tenant administrator's session, exact redirect URIs and the API as the default
// resource, consent and device approval only within the client's tenant (device lookups rate limited),
// device codes swapped for their keyed hash, the token endpoint (oauth/token-hooks.ts: client
// authentication first, refresh-token reuse and a replayed code ending their grant), RFC 7009 revocation of
// the grant reaching the gateway, ID tokens in the client's algorithm (oauth/id-tokens.ts), RP-initiated
// logout to registered URIs only (oauth/logout.ts), introspection and userinfo knowing what was revoked,
// and the SMART launch patient chosen at consent (oauth/launch.ts).
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, getSessionFromCtx } from 'better-auth/api';
import { verifyJWT } from 'better-auth/plugins';
import { getOAuthProviderApi } from '@better-auth/oauth-provider';
import type { OAuthOptions, Scope } from '@better-auth/oauth-provider';
import type { Logger } from '@simrs/platform/logger';
import { tokenFacts } from '@simrs/contracts/oauth';
import { LAUNCH_PATIENT_SCOPE } from '@simrs/contracts/smart';
import type { Config } from '../config.ts';
import type { Directory } from '../directory/index.ts';
import type { Keys } from '../keys/index.ts';
import type { IdentityStorage, Revocations } from '../sessions/index.ts';
import { clientIp, limited } from '../signin/index.ts';
import type { Ctx, Limits } from '../signin/index.ts';
import type { Grants } from './grants.ts';
import { idTokenAlgMetadata, requestedIdTokenAlg } from './id-tokens.ts';
import { refuseUnsafeClientUris } from './client-uris.ts';
import { asksForLaunchPatient, launchSchema } from './launch.ts';
import type { Launch } from './launch.ts';
import { logoutHooks } from './logout.ts';
import { parMetadata, requestedParRequirement } from './par.ts';
import type { Par } from './par.ts';
import type { OAuthClients } from './oauth-clients.ts';
import { CLIENT_BASE_SCOPES, grantAllows, TOKEN_PREFIX } from './registration-tokens.ts';
import type { RegistrationGrant, RegistrationTokens } from './registration-tokens.ts';
import { tokenHooks } from './token-hooks.ts';
import { bearer, decodePayload, isPlainObject, oauthError, returnedError } from './tokens.ts';
import type { Handover } from './tokens.ts';

export interface OAuthDeps {
  config: Config;
  keys: Keys;
  directory: Directory;
  limits: Limits;
  revocations: Revocations;
  storage: IdentityStorage;
  registrationTokens: RegistrationTokens;
  oauthClients: OAuthClients;
  log: Logger;
}

/** What the provider options hand over to the hooks (provider.ts fills both). */
export interface OAuthState {
  /** Registration tokens consumed by a registration in flight, by token. */
  registrations: Handover<RegistrationGrant>;
  /** Device codes as handed to the device (raw), by the keyed hash that is stored. */
  deviceCodes: Handover<string>;
  grants: Grants;
  par: Par;
  launch: Launch;
}

/** The oauth-provider plugin's resolved options (its defaults applied), for its server-side API. */
export function providerOptions(ctx: Ctx): OAuthOptions<Scope[]> {
  const plugin = (ctx.context as unknown as { getPlugin(id: string): { options?: OAuthOptions<Scope[]> } | undefined }).getPlugin(
    'oauth-provider',
  );
  if (!plugin?.options) throw new APIError('INTERNAL_SERVER_ERROR', { error: 'server_error', error_description: 'oauth provider missing' });
  return plugin.options;
}

/** A device code record by what a person typed (case and separators ignored, as Better Auth does). */
async function findDeviceCode(ctx: Ctx, userCode: string): Promise<Record<string, unknown> | null> {
  const normalized = userCode.replace(/[^a-zA-Z0-9]/g, '').toUpperCase();
  if (!normalized || normalized.length > 64) return null;
  return ctx.context.adapter.findOne<Record<string, unknown>>({ model: 'deviceCode', where: [{ field: 'userCode', value: normalized }] });
}

/**
 * Client metadata for what SIMRS does not offer is refused rather than silently ignored: private_key_jwt
 * and back-channel logout (not advertised in discovery either); and an ID token algorithm identity has
 * no key for. So are URIs that are not https (client-uris.ts). Checked before a registration token is
 * consumed, whoever registers.
 */
function refuseUnofferedMetadata(body: unknown): void {
  if (!isPlainObject(body)) return;
  const refuse = (what: string) => {
    throw oauthError('BAD_REQUEST', 'invalid_client_metadata', `${what} is not supported`);
  };
  if (body.token_endpoint_auth_method === 'private_key_jwt') refuse('private_key_jwt');
  if (body.backchannel_logout_uri !== undefined) refuse('back-channel logout');
  requestedIdTokenAlg(body);
  requestedParRequirement(body);
  refuseUnsafeClientUris(body);
}

export function oauthPlugin(deps: OAuthDeps, state: OAuthState) {
  const { config, keys, registrationTokens, oauthClients, revocations, log } = deps;
  const { registrations, deviceCodes, grants, par, launch } = state;
  const audience = config.API_AUDIENCE;
  const issuer = `${config.PUBLIC_URL}/api/auth`;

  /** Registration by token: the grant is consumed here and the scopes checked before anything is created. */
  async function beforeRegister(ctx: Ctx): Promise<void> {
    const session = await getSessionFromCtx(ctx);
    if (session) {
      const user = session.user as Record<string, unknown>;
      if (user.role !== 'tenant_admin' || user.active !== true)
        throw oauthError('FORBIDDEN', 'access_denied', 'Only a tenant administrator may register OAuth clients.');
      refuseUnofferedMetadata(ctx.body);
      return;
    }
    const token = bearer(ctx.headers);
    // RFC 7591 §3.2.2 / RFC 6750 §3: a refusal names its error.
    if (!token)
      throw oauthError('UNAUTHORIZED', 'invalid_token', 'An initial access token (or a tenant administrator session) is required.', {
        'WWW-Authenticate': 'Bearer realm="simrs"',
      });
    refuseUnofferedMetadata(ctx.body);
    const grant = token.startsWith(TOKEN_PREFIX) ? await registrationTokens.consume(token) : undefined;
    if (!grant)
      throw oauthError('UNAUTHORIZED', 'invalid_token', 'Invalid initial access token', {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      });
    const body = isPlainObject(ctx.body) ? ctx.body : {};
    const requested = typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [];
    const refused = requested.filter((s) => !grantAllows(grant.scopes, s));
    if (refused.length) {
      await registrationTokens.restore(token, grant);
      throw oauthError(
        'BAD_REQUEST',
        'invalid_client_metadata',
        `the registration token does not allow the scope(s): ${refused.join(', ')}`,
      );
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
    const idTokenAlg = requestedIdTokenAlg(body);
    const parRequired = requestedParRequirement(body);
    const extra = { ...(idTokenAlg ? idTokenAlgMetadata(idTokenAlg) : {}), ...(parRequired !== undefined ? parMetadata(parRequired) : {}) };
    await oauthClients.completeRegistration(created.client_id, scopes, extra);
    log.info(
      { clientId: created.client_id, tenantId: created.reference_id ?? grant?.tenantId, scopes, by: grant ? 'token' : 'session' },
      'oauth client registered',
    );
    return ctx.json({ ...created, scope: scopes.join(' '), ...extra }, { status: 201 });
  }

  /** Exact redirect URIs, PKCE with S256, and the API as the resource when none is named. */
  async function beforeAuthorize(ctx: Ctx): Promise<void> {
    const params = (ctx.method === 'POST' ? ctx.body : ctx.query) as Record<string, unknown> | undefined;
    if (!isPlainObject(params) || typeof params.client_id !== 'string') return;
    const refuse = (error: string, description: string) => {
      const url = new URL(`${issuer}/error`);
      url.searchParams.set('error', error);
      url.searchParams.set('error_description', description);
      return ctx.redirect(url.toString());
    };
    const client = await oauthClients.find(params.client_id);
    // RFC 9126: a request_uri stands for the request pushed before; some clients must push theirs.
    const pushed = await par.expand(params, client?.requiresPar === true);
    if (!pushed.ok) throw refuse('invalid_request', pushed.description);
    if (typeof params.redirect_uri === 'string' && client && !client.redirectUris.includes(params.redirect_uri))
      throw refuse('invalid_redirect', 'redirect_uri does not match a registered redirect URI exactly');
    const { refused } = launch.authorizeParams(params);
    if (refused) throw refuse('interaction_required', refused);
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
      const record = await ctx.context.adapter.findOne<{ oauthClientId?: string }>({
        model: 'deviceCode',
        where: [{ field: 'deviceCode', value: stored }],
      });
      const client = record?.oauthClientId ? await oauthClients.find(record.oauthClientId) : undefined;
      if (client)
        await ctx.context.adapter.update({
          model: 'deviceCode',
          where: [{ field: 'deviceCode', value: stored }],
          // The device page has no patient picker: a device grant has no launch patient.
          update: { scope: client.scopes.filter((s) => s !== LAUNCH_PATIENT_SCOPE).join(' ') },
        });
    }
    if (!raw) throw oauthError('BAD_REQUEST', 'server_error', 'device code unavailable, try again');
    return ctx.json({ ...answer, device_code: raw });
  }

  /** Looking up, approving or denying a user code: rate limited, and only within the client's tenant. */
  async function beforeDeviceVerification(ctx: Ctx): Promise<void> {
    // GET /device names the code in the query, approve and deny in the body: read both places.
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

  /**
   * Only a user of the client's hospital may allow it (the consent page offers only Deny otherwise);
   * a `launch/patient` request needs the chosen patient (launch.ts), kept once the code is issued.
   */
  async function beforeConsent(ctx: Ctx): Promise<void> {
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!isPlainObject(body) || body.accept !== true || typeof body.oauth_query !== 'string') return;
    const clientId = new URLSearchParams(body.oauth_query).get('client_id');
    const session = await getSessionFromCtx(ctx);
    if (!clientId || !session) return; // the endpoint answers
    const client = await oauthClients.find(clientId);
    if (client && client.tenantId !== (session.user as Record<string, unknown>).tenantId)
      throw oauthError('FORBIDDEN', 'access_denied', 'This application belongs to another hospital.');
    launch.chosenPatient(body);
  }

  async function afterConsent(ctx: Ctx): Promise<void> {
    const body = ctx.body as Record<string, unknown> | undefined;
    const patientId = isPlainObject(body) && body.accept === true ? launch.chosenPatient(body) : undefined;
    if (patientId) await launch.remember(ctx, patientId);
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
    const row = await grants.findRefresh(ctx, token);
    if (!row) return ctx.json(null); // RFC 7009 §2.2: an unknown token is not an error
    // Revoking it again changes nothing: publishing again would only grow every gateway's deny list.
    if (row.revoked) return ctx.json(null);
    if (row.clientId === client.clientId) {
      // RFC 7009 §2.1: the tokens of this grant end, not those of the user's other grants.
      await grants.revokeGrantOf(row);
      log.info({ clientId: client.clientId }, 'refresh token revoked');
    }
  }

  /** Introspection and userinfo also know what identity revoked and who was deactivated. */
  async function stillValid(payload: Record<string, unknown>): Promise<boolean> {
    const claims = tokenFacts(payload);
    const sub = claims.sub;
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
    // Bearer or DPoP (RFC 9449 §7.1): Better Auth checks the proof; the revocation check is SIMRS's.
    const token = bearer(ctx.headers, ['Bearer', 'DPoP']);
    if (!token || token.split('.').length !== 3) return;
    const payload = decodePayload(token);
    if (payload && !(await stillValid(payload)))
      throw oauthError('UNAUTHORIZED', 'invalid_token', 'the access token was revoked', {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      });
  }

  const matches = (path: string) => (ctx: { path?: string }) => ctx.path === path;
  const logout = logoutHooks(oauthClients);
  const token = tokenHooks({ keys, grants, providerOptions, log });

  return {
    id: 'simrs-oauth',
    schema: launchSchema,
    hooks: {
      before: [
        { matcher: matches('/oauth2/register'), handler: createAuthMiddleware(beforeRegister) },
        { matcher: matches('/oauth2/authorize'), handler: createAuthMiddleware(beforeAuthorize) },
        { matcher: matches('/oauth2/consent'), handler: createAuthMiddleware(beforeConsent) },
        ...token.before,
        { matcher: matches('/oauth2/revoke'), handler: createAuthMiddleware(beforeRevoke) },
        { matcher: matches('/oauth2/userinfo'), handler: createAuthMiddleware(beforeUserInfo) },
        ...logout.before,
        {
          matcher: (ctx) => ctx.path === '/device' || ctx.path === '/device/approve' || ctx.path === '/device/deny',
          handler: createAuthMiddleware(beforeDeviceVerification),
        },
        {
          // The device code endpoint normally names the API; a request that does not gets it.
          matcher: matches('/device/code'),
          handler: createAuthMiddleware(async (ctx) => {
            // Better Auth's validator would describe a missing body in its own words.
            if (!isPlainObject(ctx.body) || typeof ctx.body.client_id !== 'string' || !ctx.body.client_id)
              throw oauthError('BAD_REQUEST', 'invalid_request', 'client_id is required');
            if (ctx.body.resource === undefined || ctx.body.resource === '') ctx.body.resource = audience;
            if (asksForLaunchPatient(ctx.body.scope))
              throw oauthError('BAD_REQUEST', 'invalid_scope', 'launch/patient needs the consent page: not offered to devices');
          }),
        },
      ],
      after: [
        { matcher: matches('/oauth2/register'), handler: createAuthMiddleware(afterRegister) },
        { matcher: matches('/device/code'), handler: createAuthMiddleware(afterDeviceCode) },
        { matcher: matches('/oauth2/introspect'), handler: createAuthMiddleware(afterIntrospect) },
        ...token.after,
        { matcher: matches('/oauth2/consent'), handler: createAuthMiddleware(afterConsent) },
        ...logout.after,
      ],
    },
  } satisfies BetterAuthPlugin;
}
