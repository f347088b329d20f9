// Session cookies: validated by identity over gRPC (ValidateSession) and cached until identity
// announces a revocation. While revocations might be missed (Redis subscription down) the cache is
// bypassed, so that a revoked session can never ride on a stale entry.
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient, grpc, isStatus } from '@simrs/proto/grpc';
import type { Principal } from '@simrs/contracts/principal';
import { credentialKey, PrincipalCache } from './cache.ts';
import type { VerifiedCredential } from './cache.ts';
import type { Revocations } from './revocations.ts';

export class UpstreamUnavailable extends Error {}

export class SessionAuthenticator {
  readonly cache: PrincipalCache;
  private readonly identity: ReturnType<typeof createClient<typeof IdentityService.method>>;
  private readonly cacheMs: number;
  private readonly revocations: Revocations;

  constructor(options: { identityAddress: string; principalSecret: string; cacheSeconds: number; revocations: Revocations }) {
    this.identity = createClient(IdentityService, options.identityAddress);
    this.cache = new PrincipalCache(options.principalSecret);
    this.cacheMs = options.cacheSeconds * 1000;
    this.revocations = options.revocations;
    options.revocations.addSink({ apply: (r) => this.cache.evict(r), reset: () => this.cache.clear() });
  }

  /** The principal behind a cookie value validated before, while its cache entry may be used; else undefined. */
  fromMemory(cookieValue: string): VerifiedCredential | undefined {
    if (!this.revocations.live || this.cacheMs <= 0) return undefined;
    const key = credentialKey(cookieValue);
    const cached = this.cache.peek(key);
    if (!cached) return undefined;
    this.cache.countHit();
    return { key, principal: cached.principal };
  }

  /** The principal behind a cookie value, undefined when identity does not know it (or no longer). */
  async principal(cookieValue: string): Promise<VerifiedCredential | undefined> {
    const key = credentialKey(cookieValue);
    const useCache = this.revocations.live && this.cacheMs > 0;
    const cached = useCache ? this.cache.get(key) : undefined;
    if (cached) return { key, principal: cached.principal };
    // A revocation published while identity is answering must not be undone by caching its answer.
    const generation = this.revocations.generation;
    try {
      const { principal } = await this.identity.validateSession({ sessionToken: cookieValue }, { timeoutMs: 2_000 });
      if (!principal) return undefined;
      const result: Principal = {
        userId: principal.userId,
        tenantId: principal.tenantId,
        role: principal.role,
        scopes: principal.scopes,
        sessionId: principal.sessionId,
      };
      const expiresAt = principal.expiresAt ? Number(principal.expiresAt.seconds) * 1000 : Date.now();
      if (useCache && generation === this.revocations.generation)
        this.cache.set(key, result, Math.min(expiresAt, Date.now() + this.cacheMs));
      return { key, principal: result };
    } catch (err) {
      if (isStatus(err, grpc.status.UNAUTHENTICATED)) return undefined;
      throw new UpstreamUnavailable('identity is unavailable', { cause: err });
    }
  }

  close(): void {
    this.identity.close();
  }
}
