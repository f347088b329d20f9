import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runPeriodically } from './periodic.ts';

test('one run at a time, a failed run does not stop the next, stop() waits for the run in hand and tells it', async () => {
  let runs = 0;
  let concurrent = 0;
  let most = 0;
  let sawStopping = false;
  const periodic = runPeriodically(async (stopping) => {
    runs += 1;
    concurrent += 1;
    most = Math.max(most, concurrent);
    try {
      if (runs === 1) throw new Error('the first run fails');
      await sleep(30);
      sawStopping ||= stopping();
    } finally {
      concurrent -= 1;
    }
  }, 5);
  while (runs < 3) await sleep(5);
  await periodic.stop();
  assert.equal(concurrent, 0, 'stop() returned while a run was going on');
  assert.equal(most, 1);
  assert.ok(sawStopping, 'the run in hand was told to stop');
  const after = runs;
  await sleep(30);
  assert.equal(runs, after, 'no run after stop()');
});
