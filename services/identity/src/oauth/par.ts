// Pushed authorization requests (RFC 9126). A client posts its authorization request to /oauth2/par,
// authenticated as at the token endpoint, and gets a one-time `request_uri` valid for a minute; the
// browser then carries only client_id and request_uri to /oauth2/authorize, where the pushed request is
// put back in place before Better Auth reads it. A client registered with
// `require_pushed_authorization_requests: true` is refused at /oauth2/authorize without one.
// Better Auth 1.7.5 has no PAR endpoint, hence this plugin. Pushed requests live in Redis (keyed-hash
// key names), single use.
import { randomBytes } from 'node:crypto';
import type { BetterAuthPlugin } from 'better-auth';
import { createAuthEndpoint } from 'better-auth/api';
import { getOAuthProviderApi } from '@better-auth/oauth-provider';
import type { OAuthOptions, Scope } from '@better-auth/oauth-provider';
import { z } from 'zod';
import type { IdentityStorage } from '../sessions/index.ts';
import type { Ctx } from '../signin/index.ts';
import { isPlainObject, oauthError } from './tokens.ts';

export const PAR_PATH = '/oauth2/par';
const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** RFC 9126 §2.2: short-lived. */
export const PAR_TTL_SECONDS = 60;
const METADATA_KEY = 'require_pushed_authorization_requests';

const storageKey = (reference: string) => `oauth-par:${reference}`;

/** Whether a registration asks for PAR only; anything but a boolean is refused. */
export function requestedParRequirement(body: unknown): boolean | undefined {
  const value = isPlainObject(body) ? body[METADATA_KEY] : undefined;
  if (value === undefined || typeof value === 'boolean') return value;
  throw oauthError('BAD_REQUEST', 'invalid_client_metadata', `${METADATA_KEY} must be a boolean`);
}
export const parMetadata = (required: boolean) => ({ [METADATA_KEY]: required });
export function requiresPar(metadata: unknown): boolean {
  const parsed = typeof metadata === 'string' ? (JSON.parse(metadata) as unknown) : metadata;
  return isPlainObject(parsed) && parsed[METADATA_KEY] === true;
}

interface Pushed {
  clientId: string;
  params: Record<string, string>;
}

/** What PAR needs to know of a client (oauth-clients.ts has it). */
interface ClientLookup {
  find(clientId: string): Promise<{ redirectUris: string[] } | undefined>;
}

export function createPar(deps: {
  storage: IdentityStorage;
  oauthClients: ClientLookup;
  providerOptions: (ctx: Ctx) => OAuthOptions<Scope[]>;
}) {
  const { storage, oauthClients } = deps;

  const plugin = {
    id: 'simrs-par',
    endpoints: {
      pushedAuthorizationRequest: createAuthEndpoint(
        PAR_PATH,
        {
          method: 'POST',
          // Client authentication reads the form again (as at Better Auth's token endpoint).
          cloneRequest: true,
          body: z.record(z.string(), z.unknown()),
          metadata: { allowedMediaTypes: ['application/x-www-form-urlencoded', 'application/json'] },
        },
        async (ctx) => {
          const { client } = await getOAuthProviderApi(ctx, deps.providerOptions(ctx as unknown as Ctx)).authenticateClient({
            requireCredentials: false,
          });
          const params: Record<string, string> = {};
          for (const [name, value] of Object.entries(ctx.body)) {
            if (typeof value === 'string' && !['client_secret', 'client_assertion', 'client_assertion_type'].includes(name))
              params[name] = value;
          }
          if (params.request_uri !== undefined)
            throw oauthError('BAD_REQUEST', 'invalid_request', 'request_uri is not allowed in a pushed request');
          const registered = await oauthClients.find(client.clientId);
          if (!params.redirect_uri || !registered?.redirectUris.includes(params.redirect_uri))
            throw oauthError('BAD_REQUEST', 'invalid_request', 'redirect_uri does not match a registered redirect URI exactly');
          params.client_id = client.clientId;
          const reference = randomBytes(32).toString('base64url');
          await storage.set(storageKey(reference), JSON.stringify({ clientId: client.clientId, params } satisfies Pushed), PAR_TTL_SECONDS);
          ctx.setStatus(201);
          return ctx.json({ request_uri: `${REQUEST_URI_PREFIX}${reference}`, expires_in: PAR_TTL_SECONDS });
        },
      ),
    },
  } satisfies BetterAuthPlugin;

  /**
   * At /oauth2/authorize: a request_uri is replaced by the request it names (once); a client that
   * requires PAR is refused without one.
   */
  async function expand(params: Record<string, unknown>, parRequired: boolean): Promise<{ ok: true } | { ok: false; description: string }> {
    const requestUri = params.request_uri;
    if (requestUri === undefined)
      return parRequired ? { ok: false, description: 'this client must use a pushed authorization request' } : { ok: true };
    if (typeof requestUri !== 'string' || !requestUri.startsWith(REQUEST_URI_PREFIX))
      return { ok: false, description: 'unknown request_uri' };
    const stored = await storage.getAndDelete(storageKey(requestUri.slice(REQUEST_URI_PREFIX.length)));
    const pushed = typeof stored === 'string' ? (JSON.parse(stored) as Pushed) : undefined;
    if (!pushed || pushed.clientId !== params.client_id)
      return { ok: false, description: 'request_uri expired, used or of another client' };
    for (const key of Object.keys(params)) delete params[key];
    Object.assign(params, pushed.params);
    return { ok: true };
  }

  return { plugin, expand };
}

export type Par = ReturnType<typeof createPar>;
