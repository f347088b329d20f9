// The gateway's view of what identity revoked, fed by Redis pub/sub plus the revocation log (read on
// every (re)subscribe). Session caches are evicted; access tokens, being self-contained JWTs, are
// checked against the deny state held here on every request (memory only, no round trip).
import { decodeRevocation, loadRevocations, REVOCATION_CHANNEL } from '@simrs/platform/revocation';
import type { Revocation } from '@simrs/platform/revocation';
import type { Redis } from '@simrs/platform/redis';
import { log } from '../log.ts';

interface UserCutoff {
  issuedBefore: number;
  clientId?: string;
  /** Epoch ms after which no token it could concern is still valid. */
  until: number;
}

export interface RevocationSink {
  apply(revocation: Revocation): void;
  /** Called when messages may have been missed: drop everything cached. */
  reset(): void;
}

/** As long as an access token can live (identity's ACCESS_TOKEN_TTL_SECONDS is at most 24 h). */
const KEEP_MS = 24 * 60 * 60 * 1000;

export class Revocations {
  private readonly tokenIds = new Map<string, number>();
  private readonly users = new Map<string, UserCutoff[]>();
  private readonly sinks: RevocationSink[] = [];
  private subscribed = false;
  /** Bumped by every revocation and reset: a verdict fetched across a bump must not be cached. */
  generation = 0;

  constructor(subscriber: Redis, reader: Redis) {
    subscriber.on('ready', () => {
      this.generation++;
      for (const sink of this.sinks) sink.reset();
      void subscriber
        .subscribe(REVOCATION_CHANNEL)
        .then(() => loadRevocations(reader))
        .then((all) => {
          for (const r of all) this.apply(r);
          this.subscribed = true;
        })
        .catch((err: unknown) => log.warn({ err }, 'could not load revocations'));
    });
    subscriber.on('close', () => (this.subscribed = false));
    subscriber.on('message', (_channel: string, message: string) => {
      const revocation = decodeRevocation(message);
      if (revocation) this.apply(revocation);
    });
    setInterval(() => this.prune(), 60_000).unref();
  }

  /** Whether cached verdicts can be trusted: false while revocations might be missed. */
  get live(): boolean {
    return this.subscribed;
  }

  addSink(sink: RevocationSink): void {
    this.sinks.push(sink);
  }

  apply(revocation: Revocation): void {
    this.generation++;
    const until = Date.now() + KEEP_MS;
    for (const id of revocation.tokenIds ?? []) this.tokenIds.set(id, until);
    if (revocation.userId) {
      const cutoffs = this.users.get(revocation.userId) ?? [];
      cutoffs.push({ issuedBefore: revocation.issuedBefore ?? Math.ceil(Date.now() / 1000), clientId: revocation.clientId, until });
      this.users.set(revocation.userId, cutoffs);
    }
    for (const sink of this.sinks) sink.apply(revocation);
  }

  /** Whether an access token with these claims was revoked. */
  isRevoked(token: { jti?: string; sub?: string; clientId?: string; iat?: number }): boolean {
    if (token.jti && this.tokenIds.has(token.jti)) return true;
    const cutoffs = token.sub ? this.users.get(token.sub) : undefined;
    if (!cutoffs) return false;
    const iat = token.iat ?? 0;
    return cutoffs.some((c) => iat < c.issuedBefore && (!c.clientId || c.clientId === token.clientId));
  }

  private prune(now = Date.now()): void {
    for (const [id, until] of this.tokenIds) if (until < now) this.tokenIds.delete(id);
    for (const [user, cutoffs] of this.users) {
      const kept = cutoffs.filter((c) => c.until >= now);
      if (kept.length) this.users.set(user, kept);
      else this.users.delete(user);
    }
  }
}
