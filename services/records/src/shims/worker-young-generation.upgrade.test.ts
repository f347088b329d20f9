// Fails when a Node or V8 upgrade changes what shims/worker-young-generation.ts relies on: a flag set
// with v8.setFlagsFromString after start-up is read by the next isolate made (a worker's), and not by
// the heap already made (the main thread's). Run in a node of its own given the services' flag, as
// they are started.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { YOUNG_GENERATION_FLAG } from '@simrs/platform/runtime';

// Each worker churns through short-lived objects (so V8 grows its young generation to the cap) and
// answers the size its young generation reached.
const PROBE = `
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { workerWithOwnYoungGeneration } from ${JSON.stringify(new URL('./worker-young-generation.ts', import.meta.url).href)};
const churn = 'const keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 20000) keep.length = 0; }';
const newSpaceMb = () => Math.round(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576);
const worker = \`import v8 from 'node:v8'; import { parentPort } from 'node:worker_threads'; \${churn};
  parentPort.postMessage(Math.round(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576));\`;
const url = new URL('data:text/javascript,' + encodeURIComponent(worker));
const limits = { resourceLimits: { maxYoungGenerationSizeMb: 6 } };
const answer = (w) => new Promise((ok) => w.once('message', (mb) => w.terminate().then(() => ok(mb))));
const plain = await answer(new Worker(url, limits));
const [own, alsoOwn] = await Promise.all([answer(workerWithOwnYoungGeneration(url, limits)), answer(workerWithOwnYoungGeneration(url, limits))]);
const plainAfter = await answer(new Worker(url, limits));
eval(churn);
console.log(JSON.stringify({ plain, own, alsoOwn, plainAfter, main: newSpaceMb() }));
`;

test("a worker's own young-generation limit holds under the services' flag; the main thread and later workers keep the flag's", () => {
  const run = spawnSync(process.execPath, [YOUNG_GENERATION_FLAG, '--input-type=module', '-e', PROBE], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const sizes = JSON.parse(run.stdout) as Record<'plain' | 'own' | 'alsoOwn' | 'plainAfter' | 'main', number>;
  const flagMb = Number(YOUNG_GENERATION_FLAG.split('=')[1]);
  // Without the shim the flag wins (the reason for it); with it the worker's own limit does, for two
  // started at once; afterwards the flag is back for every other isolate, and the main thread's heap
  // never saw it cleared.
  assert.ok(sizes.plain >= flagMb, `a plain worker has the flag's young generation: ${run.stdout}`);
  assert.ok(sizes.own < flagMb / 2 && sizes.alsoOwn < flagMb / 2, `workers through the shim have their own: ${run.stdout}`);
  assert.ok(sizes.plainAfter >= flagMb, `the flag is set back: ${run.stdout}`);
  assert.ok(sizes.main >= flagMb, `the main thread keeps the flag's: ${run.stdout}`);
});
