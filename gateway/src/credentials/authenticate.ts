// Resolves the caller of an API request (see credentials.ts for the rules) and puts it on the request
// context for the rate limit and the proxy. A bad or malformed token is refused (401); an unknown
// session goes on anonymously; both count against the client IP's refused credentials. A client IP
// over that limit is answered 429 before anything is checked (refused.ts).
import type { Request, RequestHandler, Response } from 'express';
import { clientKey } from '../limits/index.ts';
import type { CallerRateLimit } from '../limits/index.ts';
import { sendError, setCaller } from '../server/index.ts';
import { InvalidToken } from './bearer.ts';
import type { BearerAuthenticator } from './bearer.ts';
import type { PrincipalCache, VerifiedCredential } from './cache.ts';
import { callerFromMemory, MalformedAuthorization, resolveCaller, UnknownSession } from './credentials.ts';
import { dpopChallenge, DpopRefused } from './dpop.ts';
import { coolingDown } from './refused.ts';
import { UpstreamUnavailable } from './session.ts';
import type { SessionAuthenticator } from './session.ts';

export function authenticate(
  auth: {
    sessions: SessionAuthenticator;
    bearer: BearerAuthenticator;
    refused: CallerRateLimit;
  },
  /** The resource a bearer token must have been issued for on this route (RFC 8707). */
  audience: string,
): RequestHandler {
  const forAnotherResource = (verified: VerifiedCredential | null | undefined) =>
    verified?.audiences !== undefined && !verified.audiences.includes(audience);
  return async (req, res, next) => {
    // Served from memory (nothing verified, identity not asked): the rate limit asks the refused verdict.
    const remembered = callerFromMemory(req, auth);
    if (forAnotherResource(remembered)) return refuseForAnotherResource(req, res, auth.refused);
    if (remembered !== undefined) {
      if (remembered) setVerifiedCaller(res, remembered, req.headers.authorization ? auth.bearer.cache : auth.sessions.cache);
      return next();
    }
    // Anything that costs (a signature, a call to identity, a refusal) comes after the verdict.
    if (await coolingDown(req, res, auth.refused)) return;
    let verified: VerifiedCredential | undefined;
    try {
      verified = await resolveCaller(req, auth);
    } catch (err) {
      if (err instanceof UpstreamUnavailable)
        return sendError(res, 'SERVICE_UNAVAILABLE', 'sign-in service unavailable, try again shortly');
      if (err instanceof DpopRefused) {
        await auth.refused.check(clientKey(req));
        return sendError(res, 'UNAUTHORIZED', 'the access token is bound to a key (DPoP) and its proof is missing or invalid', {
          'www-authenticate': dpopChallenge(err.code, err.message),
        });
      }
      if (err instanceof InvalidToken || err instanceof MalformedAuthorization) {
        await auth.refused.check(clientKey(req));
        const description = err instanceof MalformedAuthorization ? 'malformed' : 'invalid or expired';
        return sendError(res, 'UNAUTHORIZED', 'the access token is invalid, expired or revoked', {
          'www-authenticate': `Bearer error="invalid_token", error_description="${description}"`,
        });
      }
      if (!(err instanceof UnknownSession)) throw err;
      await auth.refused.check(clientKey(req));
    }
    if (forAnotherResource(verified)) return refuseForAnotherResource(req, res, auth.refused);
    if (verified) setVerifiedCaller(res, verified, req.headers.authorization ? auth.bearer.cache : auth.sessions.cache);
    next();
  };
}

/** A valid token for another of SIMRS's resources (the API's on the MCP server's route, or the reverse). */
async function refuseForAnotherResource(req: Request, res: Response, refused: CallerRateLimit): Promise<void> {
  await refused.check(clientKey(req));
  sendError(res, 'UNAUTHORIZED', 'the access token was issued for another resource: ask for one with this resource (RFC 8707)', {
    'www-authenticate': `Bearer error="invalid_token", error_description="issued for another resource"`,
  });
}

function setVerifiedCaller(res: Response, { key, principal }: VerifiedCredential, cache: PrincipalCache): void {
  setCaller(res, { principal, signPrincipal: () => cache.mint(key, principal) });
}
