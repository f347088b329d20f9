// How a service process runs: its node options, its allocator, how node is pointed at its code. One
// place for every way a service starts: `npm start` (scripts/lib/stack.ts), the tests that start real
// processes (`startService` in ./testing), the images (the Dockerfile's CMD and ENV, compared with
// this module by test/chart-image.test.ts) and the chart (which sets none of these, so the image's apply;
// test/chart-image.test.ts keeps it so). The measurements behind each choice are in docs/benchmarks.md.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GC_FLAG } from './reclaim.ts';

/**
 * V8's young generation, capped. Under load V8 grows it to its largest (doubled where pointers are not
 * compressed, as in Node) and keeps it until a memory-reducing collection: at each service's peak it
 * was the largest single part of the resident set, mostly empty. A smaller cap means more scavenges and
 * more garbage promoted to the old generation: docs/benchmarks.md (Memory) has what it saves and costs.
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=16';

/**
 * The node options every service runs with. GC_FLAG lets the idle reclaim (reclaim.ts) give memory back
 * after the start and after each busy spell; YOUNG_GENERATION_FLAG bounds the heap's growth under load.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = [GC_FLAG, YOUNG_GENERATION_FLAG];

/** Each service's container memory limit in the chart (charts/simrs/values.yaml), MiB. */
export const POD_MEMORY_LIMIT_MIB: Readonly<Record<'gateway' | 'identity' | 'records' | 'notifier', number>> = {
  gateway: 512,
  identity: 512,
  records: 512,
  notifier: 256,
};

/** The least old generation V8 gives itself however little memory there is (Node's pointers are not compressed). */
const MIN_OLD_GENERATION_MB = 256;

/**
 * The V8 heap limit a service has in its pod, as a node option. Node sizes V8's heap from the memory
 * its cgroup allows: in a container the old generation may take half of the limit, never less than
 * V8's floor; and the smaller that limit, the less V8 lets the old generation grow between full
 * collections. Outside a container Node sizes the heap from the whole machine, so a stack that runs the
 * services as the images do (compiled: the bench) gives them this option. test/images checks it against
 * each image in a container of the chart's limit; test/pod-heap.test.ts checks the limits against the chart.
 */
export function podHeapOption(service: keyof typeof POD_MEMORY_LIMIT_MIB): string {
  return `--max-old-space-size=${Math.max(POD_MEMORY_LIMIT_MIB[service] / 2, MIN_OLD_GENERATION_MB)}`;
}

/**
 * The export condition that resolves the shared workspaces to their compiled dist/ (their package.json
 * `exports`), so that a compiled service never loads a .ts file and Node's type stripper, with its
 * WebAssembly memory, never starts.
 */
export const COMPILED_CONDITION = '--conditions=simrs-compiled';

/**
 * How node starts a service in its workspace folder: the TypeScript sources (tests, npm start), or
 * with `compiled` the JavaScript that `npm run build` writes to dist/, as the images run it.
 */
export function serviceArgs(compiled = false): string[] {
  return compiled
    ? [...SERVICE_NODE_FLAGS, COMPILED_CONDITION, '--import', './dist/instrumentation.js', 'dist/main.js']
    : [...SERVICE_NODE_FLAGS, '--import', './src/instrumentation.ts', 'src/main.ts'];
}

/**
 * How the chart's migration Jobs run a service's migrations in its image: compiled, without the
 * services' options (a short-lived process has no idle memory to give back).
 */
export const MIGRATE_ARGS: readonly string[] = [COMPILED_CONDITION, 'dist/db/migrate.js'];

/**
 * glibc's allocator settings. Buffers freed after a load stayed in malloc's arenas: at most two arenas,
 * and a fixed trim threshold (which also stops glibc from raising its mmap threshold, so large buffers
 * go back to the system when freed), return some of it. They still apply where jemalloc is missing.
 */
const GLIBC_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' };

/** Debian's libjemalloc2; LD_PRELOAD finds it by name in the library path on any architecture. */
export const JEMALLOC = 'libjemalloc.so.2';

/**
 * jemalloc instead of glibc's malloc. Under load the gateway's ArrayBuffers wait in V8's old generation
 * for a full collection and grow glibc's main heap; glibc gives back only the top of that heap, so most
 * of it stayed resident, free, after the load. jemalloc's background thread returns freed pages after
 * its decay time. The decay stays jemalloc's own: a shorter one kept the peak lower but cost CPU per
 * request (pages returned, then faulted in again).
 *
 * One arena, and thread caches for small sizes only: by default jemalloc gives a process four arenas
 * per core, and each of its threads (the main thread, V8's helpers, libuv's pool, records' export
 * lanes) a cache of freed blocks up to 32 KiB, memory held whether or not the thread allocates again.
 * Measured in paired runs on the request paths, token refreshes and the bulk export with one and two
 * lanes: less memory in each, no CPU cost out of the machine's noise (docs/benchmarks.md, the
 * allocator's arenas and thread caches).
 */
const JEMALLOC_ENV: Readonly<Record<string, string>> = {
  LD_PRELOAD: JEMALLOC,
  MALLOC_CONF: 'background_thread:true,narenas:1,tcache_max:4096',
};

/** Every allocator setting the images run with (the Dockerfile installs libjemalloc2). */
export const IMAGE_ENV: Readonly<Record<string, string>> = { ...GLIBC_ENV, ...JEMALLOC_ENV };

/** Whether libjemalloc2 is installed here (a machine without it runs the services on glibc's malloc). */
export function jemallocInstalled(dirs = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib']): boolean {
  return dirs.some((dir) => existsSync(join(dir, JEMALLOC)));
}

/** The allocator settings every service starts with: the images', less jemalloc where it is missing. */
export const SERVICE_ENV: Readonly<Record<string, string>> = jemallocInstalled() ? IMAGE_ENV : GLIBC_ENV;
