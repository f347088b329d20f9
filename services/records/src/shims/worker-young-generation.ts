// SHIM: a worker thread given the young generation its `resourceLimits` ask for. V8 reads its
// `--max-semi-space-size` flag each time it makes an isolate, and the flag overrides the isolate's own
// limit, so a worker of a service started with it (every service is: YOUNG_GENERATION_FLAG in
// @simrs/platform/runtime) gets the main thread's young generation whatever its `resourceLimits` say:
// a worker asking for 4 MB was measured with 4 MB without the flag and 33 MB with it. Here the flag is
// cleared while the worker's isolate is made (until the worker is online) and then set back, so the
// main thread, whose heap was sized at its start, keeps its own.
//
// Replaces: `new Worker(url, { resourceLimits })` where `maxYoungGenerationSizeMb` is meant.
// Below the public API: `v8.setFlagsFromString` after start-up, which Node documents as public but with
// effects left to V8; what this relies on (a new isolate reads the flag, an existing heap does not) is
// checked by worker-young-generation.upgrade.test.ts.
// Gain measured: records' peak RSS during an export in two lanes (`BENCH_EXPORT_LANES=2`, bench/export.ts)
// went from 308 to 273 MB on the 50k-patient set, and from 294 to 243 MB on the 1M-patient set, for a
// young generation of 8 MB per lane against the flag's 32 (2026-11-28, 2-core machine, nothing else
// running; docs/benchmarks.md#bulk-data-export).
// Waits for: a per-isolate young-generation limit that a process-wide flag does not override.
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';

/** The process's own semi-space flag, if any: the command line's over NODE_OPTIONS', the last of each, as node reads them. */
const PROCESS_FLAG = (() => {
  const given = [process.env.NODE_OPTIONS ?? '', ...process.execArgv].join(' ');
  const sizes = [...given.matchAll(/--max-semi-space-size[= ](\d+)/g)].map((match) => match[1]);
  return sizes.length > 0 ? `--max-semi-space-size=${sizes[sizes.length - 1]}` : undefined;
})();

let starting = 0;

/** A worker whose young generation is `options.resourceLimits.maxYoungGenerationSizeMb`, not the process's. */
export function workerWithOwnYoungGeneration(url: URL, options: WorkerOptions): Worker {
  const flag = PROCESS_FLAG;
  if (!flag || options.resourceLimits?.maxYoungGenerationSizeMb === undefined) return new Worker(url, options);
  if (starting++ === 0) v8.setFlagsFromString('--max-semi-space-size=0');
  let started = false;
  const restore = () => {
    if (started) return;
    started = true;
    if (--starting === 0) v8.setFlagsFromString(flag);
  };
  try {
    const worker = new Worker(url, options);
    worker.once('online', restore);
    worker.once('exit', restore);
    return worker;
  } catch (err) {
    restore();
    throw err;
  }
}
