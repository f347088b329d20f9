// Session cookies: validated by identity over gRPC (ValidateSession), cached until identity announces a
// revocation on Redis. While the revocation subscription is down the cache is bypassed, so that a
// revoked session can never ride on a stale entry.
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient, grpc, isStatus } from '@simrs/proto/grpc';
import type { Principal } from '@simrs/platform/principal';
import { decodeRevocation, REVOCATION_CHANNEL } from '@simrs/platform/revocation';
import type { Redis } from '@simrs/platform/redis';
import { log } from '../log.ts';
import { credentialKey, PrincipalCache } from './cache.ts';

export class UpstreamUnavailable extends Error {}

export class SessionAuthenticator {
  readonly cache: PrincipalCache;
  private readonly identity: ReturnType<typeof createClient<typeof IdentityService.method>>;
  private readonly cacheMs: number;
  private subscribed = false;

  constructor(options: { identityAddress: string; principalSecret: string; cacheSeconds: number; subscriber: Redis }) {
    this.identity = createClient(IdentityService, options.identityAddress);
    this.cache = new PrincipalCache(options.principalSecret);
    this.cacheMs = options.cacheSeconds * 1000;
    const sub = options.subscriber;
    sub.on('ready', () => {
      // Messages published while we were away are lost: start from an empty cache.
      this.cache.clear();
      void sub.subscribe(REVOCATION_CHANNEL).then(() => (this.subscribed = true));
    });
    sub.on('close', () => (this.subscribed = false));
    sub.on('message', (_channel: string, message: string) => {
      const revocation = decodeRevocation(message);
      if (revocation) log.debug({ evicted: this.cache.evict(revocation) }, 'revocation applied');
    });
  }

  /** The principal behind a cookie value, undefined when identity does not know it (or no longer). */
  async principal(cookieValue: string): Promise<{ key: string; principal: Principal } | undefined> {
    const key = credentialKey(cookieValue);
    const useCache = this.subscribed && this.cacheMs > 0;
    const cached = useCache ? this.cache.get(key) : undefined;
    if (cached) return { key, principal: cached };
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
      this.cache.set(key, result, Math.min(expiresAt, Date.now() + (useCache ? this.cacheMs : 0)));
      return { key, principal: result };
    } catch (err) {
      if (isStatus(err, grpc.status.UNAUTHENTICATED)) return undefined;
      throw new UpstreamUnavailable('identity is unavailable', { cause: err });
    }
  }

  get ready(): boolean {
    return this.subscribed;
  }

  close(): void {
    this.identity.close();
  }
}
