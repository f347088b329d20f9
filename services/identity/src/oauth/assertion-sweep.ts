// Spent client assertions go once they can no longer be replayed. Each backend-service token request
// leaves a row in the provider's `oauthClientAssertion` table (its `jti`, spent: backend-services.ts),
// and the provider prunes none of them. A row is needed only while its assertion could still be
// accepted, that is until its `exp` (`expiresAt`), which the provider checks strictly. Rows are kept a
// grace period longer, because replicas read `exp` against their own clocks and this statement reads
// Postgres' clock: a replay stays refused as long as no replica's clock runs more than the grace behind
// the database's. The work is bounded: a batch per statement, a few batches per turn, every replica
// sweeping on its own timer (a row deleted twice is deleted once; a batch another replica is deleting
// is skipped, not waited for).
import type { Pool } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { runPeriodically } from '@simrs/platform/periodic';
import type { Periodic } from '@simrs/platform/periodic';

export interface AssertionSweepOptions {
  /** How long past its expiry a spent assertion is kept. */
  graceSeconds: number;
  batch: number;
  /** Batches per turn, so that one turn is bounded however many rows wait. */
  maxBatches: number;
}

export const ASSERTION_SWEEP_DEFAULTS: AssertionSweepOptions = { graceSeconds: 300, batch: 1_000, maxBatches: 20 };

const DELETE_EXPIRED = `delete from "oauthClientAssertion" where id in (
    select id from "oauthClientAssertion" where "expiresAt" < now() - make_interval(secs => $1::int)
     limit $2::int for update skip locked)`;

/** One turn: deletes expired assertions batch by batch, up to `maxBatches` or until stopping. The number deleted. */
export async function sweepSpentAssertions(
  pool: Pool,
  options: AssertionSweepOptions = ASSERTION_SWEEP_DEFAULTS,
  stopping: () => boolean = () => false,
): Promise<number> {
  let deleted = 0;
  for (let turn = 0; turn < options.maxBatches && !stopping(); turn++) {
    const { rowCount } = await pool.query(DELETE_EXPIRED, [options.graceSeconds, options.batch]);
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < options.batch) break;
  }
  return deleted;
}

/** Sweeps every `everySeconds` until stopped; a failed turn (Postgres away) is logged and tried again next time. */
export function startAssertionSweep(pool: Pool, log: Logger, everySeconds: number): Periodic {
  return runPeriodically(
    (stopping) =>
      sweepSpentAssertions(pool, ASSERTION_SWEEP_DEFAULTS, stopping)
        .then((deleted) => void (deleted > 0 && log.info({ deleted }, 'spent client assertions removed')))
        .catch((err: unknown) => log.warn({ err }, 'spent client assertions not removed, trying again later')),
    everySeconds * 1000,
  );
}
