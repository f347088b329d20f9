// The gateway's view of what identity revoked, fed by Redis pub/sub plus the revocation log (read on
// every (re)subscribe). Session caches are evicted; access tokens, being self-contained JWTs, are
// checked against the deny state held here on every request (memory only, no round trip). Whether a
// revocation concerns a token is decided by the one rule in @simrs/contracts/revocation (`revokes`);
// the revocations are only indexed here (by token id, grant and user) so that a request looks at the
// few that could concern it.
import { decodeRevocation, loadRevocations, REVOCATION_CHANNEL, revokes, withCutoff } from '@simrs/contracts/revocation';
import type { Revocation, TokenFacts } from '@simrs/contracts/revocation';
import type { Redis } from '@simrs/platform/redis';
import { log } from '../server/index.ts';

interface Kept {
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

/** Revocations by a key (token id, grant id or user id). */
class Index {
  private readonly entries = new Map<string, Kept[]>();
  add(key: string, kept: Kept): void {
    const list = this.entries.get(key) ?? [];
    list.push(kept);
    this.entries.set(key, list);
  }
  concerns(key: string | undefined, token: TokenFacts): boolean {
    const list = key === undefined ? undefined : this.entries.get(key);
    return list?.some((k) => revokes(k.revocation, token)) ?? false;
  }
  prune(now: number): void {
    for (const [key, list] of this.entries) {
      const kept = list.filter((k) => k.until >= now);
      if (kept.length) this.entries.set(key, kept);
      else this.entries.delete(key);
    }
  }
}

export class Revocations {
  private readonly byToken = new Index();
  private readonly byGrant = new Index();
  private readonly byUser = new Index();
  private readonly sinks: RevocationSink[] = [];
  private subscribed = false;
  /** Counts the subscriber's connections: a catch-up belongs to one. */
  private connection = 0;
  /** Bumped by every revocation and reset: a verdict fetched across a bump must not be cached. */
  generation = 0;

  constructor(subscriber: Redis, reader: Redis) {
    subscriber.on('ready', () => {
      this.generation++;
      for (const sink of this.sinks) sink.reset();
      void this.catchUp(subscriber, reader, ++this.connection);
    });
    subscriber.on('close', () => {
      this.subscribed = false;
      this.connection++;
    });
    subscriber.on('message', (_channel: string, message: string) => {
      const revocation = decodeRevocation(message);
      if (revocation) this.apply(revocation);
    });
    setInterval(() => this.prune(), 60_000).unref();
  }

  /**
   * Subscribes and reads the log, again until it works while this connection lasts: after a Redis
   * failover the reader may reach the new master later than the subscriber, and until the log is read
   * no cached verdict is trusted.
   */
  private async catchUp(subscriber: Redis, reader: Redis, connection: number): Promise<void> {
    for (let attempt = 0; connection === this.connection; attempt++) {
      try {
        await subscriber.subscribe(REVOCATION_CHANNEL);
        const all = await loadRevocations(reader);
        if (connection !== this.connection) return;
        for (const r of all) this.apply(r);
        this.subscribed = true;
        return;
      } catch (err) {
        log.warn({ err }, 'could not load revocations; trying again');
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, 2_000)));
      }
    }
  }

  /** Whether cached verdicts can be trusted: false while revocations might be missed. */
  get live(): boolean {
    return this.subscribed;
  }

  addSink(sink: RevocationSink): void {
    this.sinks.push(sink);
  }

  apply(received: Revocation): void {
    this.generation++;
    // identity always sends a cut-off with a user-wide revocation; one without is read as "until now".
    const kept = { revocation: withCutoff(received), until: Date.now() + KEEP_MS };
    for (const id of received.tokenIds ?? []) this.byToken.add(id, kept);
    for (const id of received.grantIds ?? []) this.byGrant.add(id, kept);
    if (received.userId) this.byUser.add(received.userId, kept);
    for (const sink of this.sinks) sink.apply(received);
  }

  /** Whether an access token with these claims was revoked. */
  isRevoked(token: TokenFacts): boolean {
    return this.byToken.concerns(token.jti, token) || this.byGrant.concerns(token.grantId, token) || this.byUser.concerns(token.sub, token);
  }

  private prune(now = Date.now()): void {
    this.byToken.prune(now);
    this.byGrant.prune(now);
    this.byUser.prune(now);
  }
}
