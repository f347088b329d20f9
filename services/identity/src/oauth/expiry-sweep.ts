// Rows the OAuth provider leaves behind once they are of no more use, removed on a timer; the provider
// prunes neither kind itself.
// - Spent client assertions: each backend-service token request leaves a row in
//   `oauthClientAssertion` (its `jti`, spent: backend-services.ts). A row is needed only while its
//   assertion could still be accepted, that is until its `exp` (`expiresAt`), which the provider checks
//   strictly. Rows are kept a grace period longer, because replicas read `exp` against their own clocks
//   and this statement reads Postgres' clock: a replay stays refused as long as no replica's clock runs
//   more than the grace behind the database's.
// - Device codes never polled to their end: the provider deletes a device code when its device polls
//   it after its expiry or redeems it, so a flow the user abandoned, on a device that stopped polling,
//   leaves its row for good. It is kept an hour past its expiry, so that a device still polling late
//   is told `expired_token` rather than that its code is unknown.
// The work is bounded: a batch per statement, a few batches per turn, every replica sweeping on its own
// timer (a row deleted twice is deleted once; a batch another replica is deleting is skipped, not
// waited for).
import type { Pool } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { runPeriodically } from '@simrs/platform/periodic';
import type { Periodic } from '@simrs/platform/periodic';

export interface ExpirySweepOptions {
  /** How long past its expiry a row of each table is kept. */
  graceSeconds: Record<ExpiringTable, number>;
  batch: number;
  /** Batches per table per turn, so that one turn is bounded however many rows wait. */
  maxBatches: number;
}

export type ExpiringTable = 'oauthClientAssertion' | 'deviceCode';

export const EXPIRY_SWEEP_DEFAULTS: ExpirySweepOptions = {
  graceSeconds: { oauthClientAssertion: 300, deviceCode: 3600 },
  batch: 1_000,
  maxBatches: 20,
};

const deleteExpired = (table: ExpiringTable) => `delete from "${table}" where id in (
    select id from "${table}" where "expiresAt" < now() - make_interval(secs => $1::int)
     limit $2::int for update skip locked)`;

/** One turn: deletes each table's expired rows batch by batch, up to `maxBatches` or until stopping. The numbers deleted. */
export async function sweepExpiredRows(
  pool: Pool,
  options: ExpirySweepOptions = EXPIRY_SWEEP_DEFAULTS,
  stopping: () => boolean = () => false,
): Promise<Record<ExpiringTable, number>> {
  const deleted: Record<ExpiringTable, number> = { oauthClientAssertion: 0, deviceCode: 0 };
  for (const table of Object.keys(deleted) as ExpiringTable[]) {
    for (let turn = 0; turn < options.maxBatches && !stopping(); turn++) {
      const { rowCount } = await pool.query(deleteExpired(table), [options.graceSeconds[table], options.batch]);
      deleted[table] += rowCount ?? 0;
      if ((rowCount ?? 0) < options.batch) break;
    }
  }
  return deleted;
}

/** Sweeps every `everySeconds` until stopped; a failed turn (Postgres away) is logged and tried again next time. */
export function startExpirySweep(pool: Pool, log: Logger, everySeconds: number): Periodic {
  return runPeriodically(
    (stopping) =>
      sweepExpiredRows(pool, EXPIRY_SWEEP_DEFAULTS, stopping)
        .then((deleted) => {
          if (deleted.oauthClientAssertion > 0 || deleted.deviceCode > 0) log.info({ deleted }, 'expired OAuth rows removed');
        })
        .catch((err: unknown) => log.warn({ err }, 'expired OAuth rows not removed, trying again later')),
    everySeconds * 1000,
  );
}
