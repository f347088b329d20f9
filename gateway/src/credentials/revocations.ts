// The gateway's view of what identity revoked, fed by Redis pub/sub plus the revocation log (read on
// every (re)subscribe). Session caches are evicted; access tokens, being self-contained JWTs, are
// checked against the deny state held here on every request (memory only, no round trip).
import { cutoffNow, decodeRevocation, loadRevocations, REVOCATION_CHANNEL, revokes } from '@simrs/contracts/revocation';
import type { Revocation, TokenFacts } from '@simrs/contracts/revocation';
import type { Redis } from '@simrs/platform/redis';
import { log } from '../server/index.ts';

interface UserCutoff {
  revocation: Revocation;
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
      cutoffs.push({ revocation: { ...revocation, tokenIds: undefined, issuedBefore: revocation.issuedBefore ?? cutoffNow() }, until });
      this.users.set(revocation.userId, cutoffs);
    }
    for (const sink of this.sinks) sink.apply(revocation);
  }

  /** Whether an access token with these claims was revoked. */
  isRevoked(token: TokenFacts): boolean {
    if (token.jti && this.tokenIds.has(token.jti)) return true;
    const cutoffs = token.sub ? this.users.get(token.sub) : undefined;
    return cutoffs?.some((c) => revokes(c.revocation, token)) ?? false;
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
