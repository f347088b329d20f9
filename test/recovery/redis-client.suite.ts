// The services' Redis client (packages/platform/src/redis.ts) across Sentinel failovers, one after
// another (part of `npm run test:recovery`): in each, a fresh master, replica and three Sentinels, the
// master killed (SIGKILL) while the client writes, and the client writing again within 5 s, never
// ending on its own. One failover at a time hides a race: a client that ends instead of reconnecting
// does so in some failovers only, so the suite runs several.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRedis } from '@simrs/platform/redis';
import { MASTER_NAME, startSentinels } from './sentinels.ts';

const FAILOVERS = 5;
const RECOVERY_BOUND_S = 5;

describe('the services’ Redis client across Sentinel failovers', () => {
  test(`${FAILOVERS} failovers in a row: each time writes succeed again within ${RECOVERY_BOUND_S} s and the client never ends`, async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < FAILOVERS; round++) {
      const sentinels = await startSentinels();
      const redis = createRedis(
        { REDIS_URL: sentinels.url, REDIS_SENTINELS: sentinels.sentinels, REDIS_MASTER_NAME: MASTER_NAME },
        'probe',
      );
      let ended = false;
      redis.on('end', () => (ended = true));
      try {
        await redis.incr('probe');
        const killedAt = Date.now();
        await sentinels.killMaster();
        let recovered: number | undefined;
        while (recovered === undefined && !ended && Date.now() - killedAt < 3 * RECOVERY_BOUND_S * 1000) {
          if (
            await redis.incr('probe').then(
              () => true,
              () => false,
            )
          )
            recovered = (Date.now() - killedAt) / 1000;
          else await new Promise((resolve) => setTimeout(resolve, 50));
        }
        outcomes.push(recovered === undefined ? (ended ? 'ended' : 'stuck') : recovered.toFixed(1));
      } finally {
        redis.disconnect();
        await sentinels.stop();
      }
    }
    console.warn(`Redis client: s until a write succeeds after each failover: ${outcomes.join(', ')}`);
    assert.ok(
      outcomes.every((o) => Number(o) <= RECOVERY_BOUND_S),
      `every failover recovered within ${RECOVERY_BOUND_S} s: ${outcomes.join(', ')}`,
    );
  });
});
