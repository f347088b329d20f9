// The token endpoint (/oauth2/token) under SIMRS's rules: the client is authenticated before any code or
// refresh token is looked up; a replayed code and a reused refresh token end their grant (grants.ts),
// a refresh token sent twice at once too;
// issued tokens have their grant remembered, the SMART launch patient named in the answer (launch.ts),
// and the ID token signed in the client's algorithm (id-tokens.ts).
import { createAuthMiddleware, isAPIError } from 'better-auth/api';
import type { JwtOptions } from 'better-auth/plugins';
import { getOAuthProviderApi } from '@better-auth/oauth-provider';
import type { OAuthOptions, Scope } from '@better-auth/oauth-provider';
import type { Logger } from '@simrs/platform/logger';
import { PATIENT_CLAIM } from '@simrs/contracts/oauth';
import type { Keys } from '../keys/index.ts';
import type { Ctx } from '../signin/index.ts';
import type { BackendServices } from './backend-services.ts';
import { CLIENT_CREDENTIALS } from './backend-services.ts';
import type { Grants } from './grants.ts';
import { idTokenAlgOf, resignIdToken } from './id-tokens.ts';
import { decodePayload, DEVICE_CODE_GRANT, hashOAuthToken, isPlainObject, oauthError, returnedError } from './tokens.ts';

const TOKEN = '/oauth2/token';

export function tokenHooks(deps: {
  keys: Keys;
  grants: Grants;
  backend: BackendServices;
  providerOptions: (ctx: Ctx) => OAuthOptions<Scope[]>;
  log: Logger;
}) {
  const { keys, grants, backend, providerOptions, log } = deps;

  /**
   * Client authentication first (RFC 6749 §5.2): a wrong secret is invalid_client whether or not the
   * code or refresh token exists, so nobody without the secret can test tokens. Then a replayed code
   * and a reused refresh token end their grant (and only it) before Better Auth answers invalid_grant.
   */
  async function beforeToken(ctx: Ctx): Promise<void> {
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!isPlainObject(body)) return;
    // No code or refresh token to shield, and authenticating here would spend the assertion's jti
    // before the grant itself verifies it: the provider authenticates the backend service once.
    if (body.grant_type === CLIENT_CREDENTIALS) return backend.beforeClientCredentials(ctx, body);
    if (body.grant_type === DEVICE_CODE_GRANT && typeof body.device_code === 'string')
      body.device_code = hashOAuthToken(keys, body.device_code, 'device_code');
    const { client } = await getOAuthProviderApi(ctx, providerOptions(ctx)).authenticateClient({ requireCredentials: false });
    if (body.grant_type === 'authorization_code' && typeof body.code === 'string') {
      if (await grants.revokeIfReplayed(ctx, body.code))
        log.warn({ clientId: client.clientId }, 'authorization code replayed: its grant is revoked');
      await grants.refuseWrongVerifier(ctx, body.code, body.code_verifier);
      return; // Better Auth refuses a spent code and deletes the refresh tokens it issued
    }
    if (body.grant_type !== 'refresh_token' || typeof body.refresh_token !== 'string') return;
    const reused = await grants.endIfReused(ctx, body.refresh_token, client.clientId);
    if (!reused) return;
    log.warn({ clientId: reused.clientId, userId: reused.userId }, 'refresh token reused: its grant is revoked');
    throw oauthError('BAD_REQUEST', 'invalid_grant', 'invalid refresh token');
  }

  /**
   * A refresh refused because another request rotated the same token in the meantime (one token sent
   * twice at once: Better Auth rotates only a token not yet revoked, so one of them loses): a reuse too,
   * which ends the grant as beforeToken does, whichever request read the token first.
   */
  async function afterRefusedRefresh(ctx: Ctx, body: Record<string, unknown>): Promise<void> {
    const refused = ctx.context.returned;
    if (body.grant_type !== 'refresh_token' || typeof body.refresh_token !== 'string') return;
    if (!isAPIError(refused) || (refused.body as { error?: unknown } | undefined)?.error !== 'invalid_grant') return;
    const { client } = await getOAuthProviderApi(ctx, providerOptions(ctx)).authenticateClient({ requireCredentials: false });
    // The failed rotation was a write: the token's row is read again, not the one kept from before it.
    const reused = await grants.endIfReused(ctx, body.refresh_token, client.clientId);
    if (reused) log.warn({ clientId: reused.clientId, userId: reused.userId }, 'refresh token used twice at once: its grant is revoked');
  }

  /**
   * Tokens issued: their grant is remembered, the launch patient named as SMART's token response
   * names it (`patient`), and the ID token signed in the client's algorithm.
   */
  async function afterToken(ctx: Ctx) {
    const issued = returnedError(ctx);
    if (!issued || typeof issued.access_token !== 'string') {
      if (isPlainObject(ctx.body)) await afterRefusedRefresh(ctx, ctx.body);
      return;
    }
    await grants.afterIssued(ctx, typeof issued.refresh_token === 'string' ? issued.refresh_token : undefined);
    const patient = decodePayload(issued.access_token)?.[PATIENT_CLAIM];
    const answer = typeof patient === 'string' ? { ...issued, patient } : issued;
    if (typeof answer.id_token !== 'string') return answer === issued ? undefined : ctx.json(answer);
    // The ID token's audience is the client it was issued to (the row read for this request).
    const audience = decodePayload(answer.id_token)?.aud;
    const client = typeof audience === 'string' ? await getOAuthProviderApi(ctx, providerOptions(ctx)).getClient(audience) : undefined;
    const alg = client ? idTokenAlgOf(client.metadata) : 'RS256';
    if (alg === 'RS256') return answer === issued ? undefined : ctx.json(answer);
    const jwtOptions = (ctx.context as unknown as { getPlugin(id: string): { options?: JwtOptions } | undefined }).getPlugin(
      'jwt',
    )?.options;
    const idToken = await resignIdToken(ctx as never, jwtOptions, answer.id_token, issued.access_token, alg);
    return ctx.json({ ...answer, id_token: idToken });
  }

  const matches = (ctx: { path?: string }) => ctx.path === TOKEN;
  return {
    before: [{ matcher: matches, handler: createAuthMiddleware(beforeToken) }],
    after: [{ matcher: matches, handler: createAuthMiddleware(afterToken) }],
  };
}
