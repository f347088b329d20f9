// The outbox relay's rounds run in the right context, so that a mail's hand-off joins the trace of the
// request that put it: a round a put asks for runs in that put's context (also when it had to wait for
// a round in flight), and the polls in none of them. A stand-in pool records the context of each round;
// no row is ever due, so the notifier is never called.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { createOutbox } from './outbox.ts';
import type { OutboxMail } from './outbox.ts';

const MAIL = { recipient: 'dokter@rs-demo.test', template: 'otp', locale: 'id', parameters: {} } as unknown as OutboxMail;

function standInPool(als: AsyncLocalStorage<string>) {
  const rounds: (string | undefined)[] = [];
  let hold: Promise<void> | undefined;
  const pool = {
    query: async () => ({ rows: [] }),
    connect: async () => {
      rounds.push(als.getStore());
      return {
        query: async (sql: string) => {
          if (/^\s*select/i.test(sql) && hold) await hold;
          return { rows: [] };
        },
        release: () => {},
      };
    },
  };
  return {
    pool: pool as unknown as Pool,
    rounds,
    /** The rounds' selects wait until the returned function is called. */
    holdRounds(): () => void {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

const log = { info() {}, warn() {}, error() {} } as unknown as Logger;

/** Waits (bounded) until `done` holds: the rounds run on timers and promises, later on a loaded machine. */
async function until(what: string, done: () => boolean): Promise<void> {
  for (const end = Date.now() + 5_000; !done(); await sleep(5)) if (Date.now() > end) assert.fail(`timed out: ${what}`);
}

test("a round a put asks for runs in the put's context, the polls in none", async () => {
  const als = new AsyncLocalStorage<string>();
  const db = standInPool(als);
  const outbox = createOutbox({ pool: db.pool, sealKey: randomBytes(32), notifierAddress: '127.0.0.1:9', log, pollMs: 20 });
  try {
    // Puts while a round is in flight: the round after it is the first put's.
    const release = db.holdRounds();
    outbox.start();
    assert.deepEqual(db.rounds, [undefined], "the first round runs in the outbox creator's context");
    await als.run('first request', () => outbox.put('sign-in', MAIL));
    await als.run('second request', () => outbox.put('sign-in', MAIL));
    release();
    await until('the round the puts asked for', () => db.rounds.length >= 2);
    assert.deepEqual(db.rounds.slice(0, 2), [undefined, 'first request']);

    // A put between polls: a round in the put's context; the polls after it in none.
    await until('a poll', () => db.rounds.length >= 3);
    const before = db.rounds.length;
    await als.run('third request', () => outbox.put('sign-in', MAIL));
    const third = () => db.rounds.indexOf('third request');
    await until('the round the put asked for, and a poll after it', () => third() >= 0 && db.rounds.length > third() + 1);
    const after = db.rounds.slice(before);
    assert.deepEqual(
      after.filter((r) => r !== undefined),
      ['third request'],
      `rounds after the put: ${after.join(', ')}`,
    );
    assert.deepEqual(
      db.rounds.filter((r) => r !== undefined),
      ['first request', 'third request'],
      'no poll keeps the context of an earlier put',
    );
  } finally {
    await outbox.stop();
  }
});
