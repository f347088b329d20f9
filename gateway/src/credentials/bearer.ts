// OAuth access tokens: JWTs (typ at+jwt) verified here, against identity's JWKS, without a call to
// identity. jose's remote key set caches the keys and refetches when a token names an unknown key id
// (key rotation); within jose's cooldown after a fetch, such a token waits for the cooldown to pass and
// one shared refetch (so a key rotated in just after a fetch works, and unknown key ids cost identity at
// most one fetch per second). A verified token is cached by its hash until it expires, so a repeated
// token costs no signature check; revocations are checked on every use, from memory.
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { PATIENT_CLAIM, ROLE_CLAIM, TENANT_CLAIM, tokenFacts } from '@simrs/contracts/oauth';
import type { Principal } from '@simrs/contracts/principal';
import { isApiScope } from '@simrs/contracts/smart';
import type { DpopReplayStore } from '@better-auth/core/oauth2';
import { credentialKey, PrincipalCache } from './cache.ts';
import type { TokenClaims, VerifiedCredential } from './cache.ts';
import { checkSenderConstraint } from './dpop.ts';
import type { PresentedToken } from './dpop.ts';
import type { Revocations } from './revocations.ts';
import { UpstreamUnavailable } from './session.ts';

export class InvalidToken extends Error {}

/** Least time between two JWKS fetches caused by unknown key ids. */
const JWKS_COOLDOWN_MS = 1_000;

interface Verified {
  principal: Principal;
  claims: TokenClaims;
  exp: number;
}

export class BearerAuthenticator {
  readonly cache: PrincipalCache;
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  private readonly issuer: string;
  private readonly audience: string | string[];
  private readonly revocations: Revocations;
  private readonly replayStore: DpopReplayStore;
  private keysRefetch?: Promise<void>;

  constructor(options: {
    jwksUrl: string;
    issuer: string;
    /** The resources whose tokens are accepted at all; which one a route needs, authenticate decides. */
    audience: string | string[];
    principalSecret: string;
    revocations: Revocations;
    /** Where DPoP proof ids are remembered (Redis, shared by the replicas). */
    replayStore: DpopReplayStore;
  }) {
    this.jwks = createRemoteJWKSet(new URL(options.jwksUrl), { cooldownDuration: JWKS_COOLDOWN_MS, timeoutDuration: 2_000 });
    this.issuer = options.issuer;
    this.audience = options.audience;
    this.revocations = options.revocations;
    this.replayStore = options.replayStore;
    this.cache = new PrincipalCache(options.principalSecret);
  }

  /** The caller a presented token names; a DPoP-bound token needs its proof on every request (never cached). */
  async principal(presented: PresentedToken): Promise<VerifiedCredential> {
    const { token } = presented;
    // Access tokens are self-contained: only the revocation feed can take one back before it expires.
    // Without the feed the gateway cannot know, so it refuses to guess (503, retry shortly).
    if (!this.revocations.live) throw new UpstreamUnavailable('revocation feed unavailable');
    const key = credentialKey(token);
    const cached = this.cache.get(key);
    if (cached?.claims) {
      if (this.revocations.isRevoked(cached.claims)) throw new InvalidToken('token revoked');
      await checkSenderConstraint(presented, cached.claims.jkt, this.replayStore);
      return { key, principal: cached.principal, audiences: cached.claims.audiences };
    }
    const verified = await this.verify(token);
    if (this.revocations.isRevoked(verified.claims)) throw new InvalidToken('token revoked');
    await checkSenderConstraint(presented, verified.claims.jkt, this.replayStore);
    this.cache.set(key, verified.principal, verified.exp * 1000, verified.claims);
    return { key, principal: verified.principal, audiences: verified.claims.audiences };
  }

  /**
   * The caller of a plain bearer token verified before, when nothing needs checking now: the revocation
   * feed is live, the token is not revoked and is not bound to a key (DPoP proofs are checked on every
   * request). Otherwise undefined, and principal() decides.
   */
  fromMemory(token: string): VerifiedCredential | undefined {
    if (!this.revocations.live) return undefined;
    const key = credentialKey(token);
    const cached = this.cache.peek(key);
    if (!cached?.claims || cached.claims.jkt !== undefined || this.revocations.isRevoked(cached.claims)) return undefined;
    this.cache.countHit();
    return { key, principal: cached.principal, audiences: cached.claims.audiences };
  }

  /** After jose's cooldown has passed, one JWKS fetch shared by every token waiting for a new key. */
  private refetchKeys(): Promise<void> {
    this.keysRefetch ??= new Promise<void>((resolve) => setTimeout(resolve, JWKS_COOLDOWN_MS))
      .then(() => this.jwks.reload())
      .finally(() => (this.keysRefetch = undefined));
    return this.keysRefetch;
  }

  private async verifySignature(token: string): Promise<JWTPayload> {
    const check = () =>
      jwtVerify(token, this.jwks, {
        issuer: this.issuer,
        audience: this.audience,
        typ: 'at+jwt',
        algorithms: ['EdDSA', 'ES256', 'RS256'],
        requiredClaims: ['exp', 'sub', 'iat', 'jti'],
      });
    try {
      return (await check()).payload;
    } catch (err) {
      // A key id not in the set fetched less than a cooldown ago: perhaps a key rotated in since.
      if (!(err instanceof errors.JWKSNoMatchingKey) || !this.jwks.coolingDown) throw err;
      await this.refetchKeys();
      return (await check()).payload;
    }
  }

  private async verify(token: string): Promise<Verified> {
    let payload: JWTPayload;
    try {
      payload = await this.verifySignature(token);
    } catch (err) {
      if (err instanceof errors.JWKSTimeout || (err instanceof TypeError && String(err.message).includes('fetch'))) {
        throw new UpstreamUnavailable('identity keys unavailable', { cause: err });
      }
      throw new InvalidToken(err instanceof errors.JOSEError ? err.code : 'malformed token');
    }
    const tenantId = payload[TENANT_CLAIM];
    const role = payload[ROLE_CLAIM];
    if (typeof tenantId !== 'string' || typeof role !== 'string') throw new InvalidToken('token carries no tenant');
    const granted = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    const cnf = payload.cnf as { jkt?: unknown } | undefined;
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const claims = { ...tokenFacts(payload), audiences, ...(typeof cnf?.jkt === 'string' ? { jkt: cnf.jkt } : {}) };
    const clientId = claims.clientId;
    const patientId = payload[PATIENT_CLAIM];
    return {
      principal: {
        userId: payload.sub!,
        tenantId,
        role,
        // The seed's scopes and the SMART scopes (what each allows: @simrs/contracts/smart).
        scopes: granted.filter(isApiScope),
        ...(clientId ? { clientId } : {}),
        ...(typeof patientId === 'string' && patientId ? { patientId } : {}),
      },
      claims,
      exp: payload.exp!,
    };
  }
}
