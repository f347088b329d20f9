// Gives memory back to the system once a busy spell is over, and once after the start. Under load V8 grows its heap;
// when the load stops the garbage is collected, but the freed heap pages stay in V8's page pool,
// resident, until a memory-reducing collection releases them, and V8 starts one of those only when it
// sees a low allocation rate, which it measures at collections, which an idle server no longer makes:
// measured, a service that peaked at 300 MB under load held 300 MB for as long as it stayed idle, with
// 25 MB of live heap. So: once a second, the event loop's utilisation since the last look; after a
// busy spell (>= 25 %), thirty quiet seconds in a row (<= 10 %: an idle service on a crowded machine still
// counts as quiet), and the process grown by at least 16 MB since the last reclaim, one last-resort
// collection (V8's memory-reducing full GC that releases pooled pages); at most one a minute. It is not
// free: besides the collection (tens of milliseconds), the heap and the compiled code warm up again
// afterwards. Measured in turns against main with 3 s bursts and 3 s gaps, reclaiming after 2 quiet
// seconds cost 15-35 % more CPU per request; after 10 quiet seconds the bench's gaps between its runs
// did reclaim, and the gateway then spent about twice the CPU per token refresh in the 5 s run that
// followed. So: thirty seconds, longer than a lull in a working day's traffic.
// The collector is reachable only where the process was started with GC_FLAG (serviceArgs, the
// Dockerfile's CMD): V8's gc extension under a name no library looks for.
// What it buys, measured against the services started without GC_FLAG: docs/benchmarks.md (the idle reclaim).
import { performance } from 'node:perf_hooks';

export const GC_GLOBAL = 'simrsGc';
/** The node option that exposes the collector to startIdleReclaim. */
export const GC_FLAG = `--expose-gc-as=${GC_GLOBAL}`;

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface ReclaimOptions {
  everyMs?: number;
  /** Event-loop utilisation that counts as busy, and as quiet. */
  busy?: number;
  quiet?: number;
  quietLooks?: number;
  minGrowthBytes?: number;
  /** At most one reclaim in this long: under bursty load, regrowing the heap after each gap costs CPU. */
  minIntervalMs?: number;
}

export interface Reclaimer {
  /** Reclaims so far. */
  readonly count: number;
  stop(): void;
}

/** Starts watching; undefined when the process has no collector to call (started without GC_FLAG). */
export function startIdleReclaim(options: ReclaimOptions = {}): Reclaimer | undefined {
  const gc = (globalThis as Record<string, unknown>)[GC_GLOBAL] as Gc | undefined;
  if (typeof gc !== 'function') return undefined;
  const { everyMs = 1000, busy = 0.25, quiet = 0.1, quietLooks = 30, minGrowthBytes = 16 * 1024 * 1024, minIntervalMs = 60_000 } = options;
  let lastReclaim = -Infinity;
  let last = performance.eventLoopUtilization();
  // Starting up is a busy spell too: loading and compiling the modules leaves garbage and a grown young
  // generation behind, which a service that then waits for its first request would keep.
  let busySpell = true;
  let quietInARow = 0;
  let count = 0;
  let baseline = process.memoryUsage.rss();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (utilization >= busy) {
      busySpell = true;
      quietInARow = 0;
      return;
    }
    if (!busySpell) return;
    quietInARow = utilization <= quiet ? quietInARow + 1 : 0;
    if (quietInARow < quietLooks) return;
    busySpell = false;
    quietInARow = 0;
    if (process.memoryUsage.rss() - baseline < minGrowthBytes || performance.now() - lastReclaim < minIntervalMs) return;
    lastReclaim = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    count += 1;
    baseline = process.memoryUsage.rss();
    // The collection itself is not load: start the next look after it.
    last = performance.eventLoopUtilization();
  }, everyMs);
  timer.unref();
  return {
    get count() {
      return count;
    },
    stop: () => clearInterval(timer),
  };
}
