// One more try when the database was away for a moment, as a failover leaves it: the pool's
// connections to a demoted primary fail (read-only refusals, dropped sockets) while the primary's
// address already leads to the new one, so the same work on a fresh connection usually succeeds.
//
// Sent again only when that cannot write anything twice: work that is idempotent (a read: its audit
// row is a second, real access), or a write that provably did not commit (markNotCommitted). A write
// whose COMMIT went out without an answer is not sent again: the caller gets the 503 with Retry-After
// and decides, so nothing acknowledged is lost and nothing is written twice behind its back.
import { setTimeout as sleep } from 'node:timers/promises';
import { meter } from '@simrs/platform/metrics';
import { isUnavailable, provedNotCommitted } from './unavailable.ts';

/** Long enough for a new connection to be had through the primary's address, short for a person waiting. */
const RETRY_PAUSE_MS = 100;
const QUERY_CANCELED = '57014';

const retries = meter('records').createCounter('records.db.retries', {
  description:
    'Database work sent a second time after the database was unavailable, by reason (idempotent: a read; not_committed: a write Postgres provably did not commit).',
});

function retryReason(err: unknown, idempotent: boolean): 'idempotent' | 'not_committed' | undefined {
  // A statement timeout is the database busy, not away: a second try would only add to its load.
  if (!isUnavailable(err) || (err as { code?: unknown }).code === QUERY_CANCELED) return undefined;
  if (provedNotCommitted(err)) return 'not_committed';
  return idempotent ? 'idempotent' : undefined;
}

/** Runs `attempt`, and once more after a short pause when its failure allows it (see above). */
export async function retriedOnce<T>(attempt: () => Promise<T>, idempotent: boolean): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    const reason = retryReason(err, idempotent);
    if (!reason) throw err;
    retries.add(1, { reason });
    await sleep(RETRY_PAUSE_MS);
    return attempt();
  }
}
