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
import { checkBackendRegistration, createBackendServices, isBackendRegistration } from './backend-services.ts';
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
 * Client metadata for what SIMRS does not offer is refused rather than silently ignored: back-channel
 * logout (not advertised in discovery either), private_key_jwt and system/ scopes outside a backend
 * service's registration (backend-services.ts), and an ID token algorithm identity has no key for. So
 * are URIs that are not https (client-uris.ts). Checked before a registration token is consumed,
 * whoever registers.
 */
function refuseUnofferedMetadata(body: unknown): void {
  if (!isPlainObject(body)) return;
  const refuse = (what: string) => {
    throw oauthError('BAD_REQUEST', 'invalid_client_metadata', `${what} is not supported`);
  };
  checkBackendRegistration(body);
  if (body.backchannel_logout_uri !== undefined) refuse('back-channel logout');
  requestedIdTokenAlg(body);
  requestedParRequirement(body);
  refuseUnsafeClientUris(body);
}

type Hook = NonNullable<NonNullable<BetterAuthPlugin['hooks']>['before']>[number];

const matches = (path: string) => (ctx: { path?: string }) => ctx.path === path;
/** A hook on one endpoint. */
const on = (path: string, handler: (ctx: Ctx) => Promise<unknown>): Hook => ({
  matcher: matches(path),
  handler: createAuthMiddleware(handler),
});

const issuerOf = (config: Config) => `${config.PUBLIC_URL}/api/auth`;
const requestedScopes = (body: Record<string, unknown>): string[] =>
  typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [];

/** A tenant administrator registers a client with their session (no token is consumed). */
function allowAdminRegistration(session: { user: unknown }, body: unknown): void {
  const user = session.user as Record<string, unknown>;
  if (user.role !== 'tenant_admin' || user.active !== true)
    throw oauthError('FORBIDDEN', 'access_denied', 'Only a tenant administrator may register OAuth clients.');
  refuseUnofferedMetadata(body);
}

/** Registration by token: the grant is consumed here and the scopes checked before anything is created. */
async function beforeRegister(deps: OAuthDeps, registrations: Handover<RegistrationGrant>, ctx: Ctx): Promise<void> {
  const session = await getSessionFromCtx(ctx);
  if (session) return allowAdminRegistration(session, ctx.body);
  const token = bearer(ctx.headers);
  // RFC 7591 §3.2.2 / RFC 6750 §3: a refusal names its error.
  if (!token)
    throw oauthError('UNAUTHORIZED', 'invalid_token', 'An initial access token (or a tenant administrator session) is required.', {
      'WWW-Authenticate': 'Bearer realm="simrs"',
    });
  refuseUnofferedMetadata(ctx.body);
  const grant = token.startsWith(TOKEN_PREFIX) ? await deps.registrationTokens.consume(token) : undefined;
  if (!grant)
    throw oauthError('UNAUTHORIZED', 'invalid_token', 'Invalid initial access token', {
      'WWW-Authenticate': 'Bearer error="invalid_token"',
    });
  const requested = requestedScopes(isPlainObject(ctx.body) ? ctx.body : {});
  const refused = requested.filter((s) => !grantAllows(grant.scopes, s));
  if (refused.length) {
    await deps.registrationTokens.restore(token, grant);
    throw oauthError('BAD_REQUEST', 'invalid_client_metadata', `the registration token does not allow the scope(s): ${refused.join(', ')}`);
  }
  registrations.set(token, grant);
}

/** The client holds what was asked for within what was granted; the answer says so. */
async function afterRegister(deps: OAuthDeps, registrations: Handover<RegistrationGrant>, ctx: Ctx) {
  const token = bearer(ctx.headers);
  const grant = token ? registrations.take(token) : undefined;
  const created = returnedError(ctx);
  if (!created || typeof created.client_id !== 'string') {
    if (token && grant) await deps.registrationTokens.restore(token, grant);
    return;
  }
  const body = isPlainObject(ctx.body) ? ctx.body : {};
  const requested = requestedScopes(body);
  const scopes = requested.length ? [...new Set(requested)] : grant ? grant.scopes : [...CLIENT_BASE_SCOPES];
  const idTokenAlg = requestedIdTokenAlg(body);
  const parRequired = requestedParRequirement(body);
  const extra = { ...(idTokenAlg ? idTokenAlgMetadata(idTokenAlg) : {}), ...(parRequired !== undefined ? parMetadata(parRequired) : {}) };
  await deps.oauthClients.completeRegistration(created.client_id, scopes, extra, isBackendRegistration(body) ? scopes : []);
  deps.log.info(
    { clientId: created.client_id, tenantId: created.reference_id ?? grant?.tenantId, scopes, by: grant ? 'token' : 'session' },
    'oauth client registered',
  );
  return ctx.json({ ...created, scope: scopes.join(' '), ...extra }, { status: 201 });
}

/** Client registration: by an initial access token or a tenant administrator's session. */
function registrationHooks(deps: OAuthDeps, registrations: Handover<RegistrationGrant>) {
  return {
    before: on('/oauth2/register', (ctx) => beforeRegister(deps, registrations, ctx)),
    after: on('/oauth2/register', (ctx) => afterRegister(deps, registrations, ctx)),
  };
}

/** Exact redirect URIs, PKCE with S256, and the API as the resource when none is named. */
function authorizeHook({ config, oauthClients }: OAuthDeps, { par, launch }: OAuthState): Hook {
  const issuer = issuerOf(config);
  return on('/oauth2/authorize', async (ctx) => {
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
    if (params.resource === undefined || params.resource === '') params.resource = config.API_AUDIENCE;
  });
}

/**
 * Only a user of the client's hospital may allow it (the consent page offers only Deny otherwise);
 * a `launch/patient` request needs the chosen patient (launch.ts), kept once the code is issued.
 */
function consentHooks({ oauthClients }: OAuthDeps, launch: Launch) {
  const before = on('/oauth2/consent', async (ctx) => {
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!isPlainObject(body) || body.accept !== true || typeof body.oauth_query !== 'string') return;
    const clientId = new URLSearchParams(body.oauth_query).get('client_id');
    const session = await getSessionFromCtx(ctx);
    if (!clientId || !session) return; // the endpoint answers
    const client = await oauthClients.find(clientId);
    if (client && client.tenantId !== (session.user as Record<string, unknown>).tenantId)
      throw oauthError('FORBIDDEN', 'access_denied', 'This application belongs to another hospital.');
    launch.chosenPatient(body);
  });
  const after = on('/oauth2/consent', async (ctx) => {
    const body = ctx.body as Record<string, unknown> | undefined;
    const patientId = isPlainObject(body) && body.accept === true ? launch.chosenPatient(body) : undefined;
    if (patientId) await launch.remember(ctx, patientId);
  });
  return { before, after };
}

/** The device code endpoint normally names the API; a request that does not gets it. */
function deviceCodeRequestHook({ config }: OAuthDeps): Hook {
  return on('/device/code', async (ctx) => {
    // Better Auth's validator would describe a missing body in its own words.
    if (!isPlainObject(ctx.body) || typeof ctx.body.client_id !== 'string' || !ctx.body.client_id)
      throw oauthError('BAD_REQUEST', 'invalid_request', 'client_id is required');
    if (ctx.body.resource === undefined || ctx.body.resource === '') ctx.body.resource = config.API_AUDIENCE;
    if (asksForLaunchPatient(ctx.body.scope))
      throw oauthError('BAD_REQUEST', 'invalid_scope', 'launch/patient needs the consent page: not offered to devices');
  });
}

/** A client on a device never names the resource or, often, the scopes: the API and its client's. */
function deviceCodeIssuedHook({ oauthClients }: OAuthDeps, deviceCodes: Handover<string>): Hook {
  return on('/device/code', async (ctx) => {
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
  });
}

const DEVICE_VERIFICATION_PATHS = new Set(['/device', '/device/approve', '/device/deny']);

/** Looking up, approving or denying a user code: rate limited, and only within the client's tenant. */
function deviceVerificationHook({ limits, oauthClients }: OAuthDeps): Hook {
  return {
    matcher: (ctx) => DEVICE_VERIFICATION_PATHS.has(ctx.path ?? ''),
    handler: createAuthMiddleware(async (ctx) => {
      // GET /device names the code in the query, approve and deny in the body: read both places.
      const source = { ...(isPlainObject(ctx.query) ? ctx.query : {}), ...(isPlainObject(ctx.body) ? ctx.body : {}) };
      const userCode = source.user_code ?? source.userCode;
      if (typeof userCode !== 'string') return;
      const session = await getSessionFromCtx(ctx);
      await limited(() => limits.deviceCode(clientIp(ctx), session?.user.id));
      if (!session) return; // the endpoint answers (GET: status only; approve/deny: 401)
      const record = await findDeviceCode(ctx, userCode);
      const clientId = typeof record?.oauthClientId === 'string' ? record.oauthClientId : undefined;
      if (!clientId) return; // the endpoint answers invalid_request
      const client = await oauthClients.find(clientId);
      if (!client || client.tenantId !== (session.user as Record<string, unknown>).tenantId)
        throw oauthError('FORBIDDEN', 'access_denied', 'This device request comes from an application of another hospital.');
    }),
  };
}

/** A JWT access token cannot be deleted: its jti goes to the gateway's deny list. */
async function revokeAccessToken(deps: OAuthDeps, ctx: Ctx, token: string, clientId: string) {
  const payload = await verifyJWT(token, {
    jwt: { issuer: issuerOf(deps.config), audience: [deps.config.API_AUDIENCE, deps.config.MCP_RESOURCE] },
  });
  if (payload && payload.azp === clientId && typeof payload.jti === 'string') {
    await deps.revocations.publish({ tokenIds: [payload.jti] });
    deps.log.info({ clientId }, 'access token revoked');
  }
  // RFC 7009 §2.2: an invalid or foreign token is answered like a revoked one.
  return ctx.json(null);
}

/**
 * RFC 7009. A JWT access token cannot be deleted: its jti goes to the gateway's deny list (Better
 * Auth would answer unsupported_token_type). A refresh token is revoked by Better Auth; the access
 * tokens of that user and client issued until now are cut off at the gateway.
 */
function revocationHook(deps: OAuthDeps, grants: Grants): Hook {
  return on('/oauth2/revoke', async (ctx) => {
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!isPlainObject(body) || typeof body.token !== 'string' || !body.token) return;
    const token = body.token.replace(/^Bearer\s+/i, '');
    const { client } = await getOAuthProviderApi(ctx, providerOptions(ctx)).authenticateClient({ requireCredentials: false });
    if (token.split('.').length === 3) return revokeAccessToken(deps, ctx, token, client.clientId);
    if (body.token_type_hint === 'access_token') return;
    const row = await grants.findRefresh(ctx, token);
    if (!row) return ctx.json(null); // RFC 7009 §2.2: an unknown token is not an error
    // Revoking it again changes nothing: publishing again would only grow every gateway's deny list.
    if (row.revoked) return ctx.json(null);
    if (row.clientId === client.clientId) {
      // RFC 7009 §2.1: the tokens of this grant end, not those of the user's other grants.
      await grants.revokeGrantOf(row);
      deps.log.info({ clientId: client.clientId }, 'refresh token revoked');
    }
  });
}

/** Introspection and userinfo also know what identity revoked and who was deactivated. */
function validityHooks({ revocations, directory }: OAuthDeps) {
  async function stillValid(payload: Record<string, unknown>): Promise<boolean> {
    const claims = tokenFacts(payload);
    const sub = claims.sub;
    if (await revocations.isRevoked(claims)) return false;
    const user = sub ? await directory.findUserById(sub) : undefined;
    return user?.active === true;
  }
  const introspect = on('/oauth2/introspect', async (ctx) => {
    const answer = returnedError(ctx);
    if (!answer || answer.active !== true) return;
    if (!(await stillValid(answer))) return ctx.json({ active: false });
  });
  const userInfo = on('/oauth2/userinfo', async (ctx) => {
    // Bearer or DPoP (RFC 9449 §7.1): Better Auth checks the proof; the revocation check is SIMRS's.
    const token = bearer(ctx.headers, ['Bearer', 'DPoP']);
    if (!token || token.split('.').length !== 3) return;
    const payload = decodePayload(token);
    if (payload && !(await stillValid(payload)))
      throw oauthError('UNAUTHORIZED', 'invalid_token', 'the access token was revoked', {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      });
  });
  return { introspect, userInfo };
}

export function oauthPlugin(deps: OAuthDeps, state: OAuthState) {
  const registration = registrationHooks(deps, state.registrations);
  const consent = consentHooks(deps, state.launch);
  const validity = validityHooks(deps);
  const logout = logoutHooks(deps.oauthClients);
  const backend = createBackendServices({ oauthClients: deps.oauthClients, apiAudience: deps.config.API_AUDIENCE });
  const token = tokenHooks({ keys: deps.keys, grants: state.grants, backend, providerOptions, log: deps.log });

  return {
    id: 'simrs-oauth',
    schema: launchSchema,
    hooks: {
      before: [
        registration.before,
        authorizeHook(deps, state),
        consent.before,
        ...token.before,
        revocationHook(deps, state.grants),
        validity.userInfo,
        ...logout.before,
        deviceVerificationHook(deps),
        deviceCodeRequestHook(deps),
      ],
      after: [
        registration.after,
        deviceCodeIssuedHook(deps, state.deviceCodes),
        validity.introspect,
        ...token.after,
        consent.after,
        ...logout.after,
      ],
    },
  } satisfies BetterAuthPlugin;
}
