// The load generator, in its own process so that it never shares an event loop (or a core's worth of
// JavaScript) with what it measures: `wrk` (Debian package wrk) when installed, otherwise the undici
// loop of load.ts in a child node process. Loopback targets only, bounded in time.
import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadOptions, LoadResult } from './load.ts';

const run = promisify(execFile);
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

// Prints the summary as one JSON line (wrk's own text output is for people).
const REPORT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p95_us":%d,"p99_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99)))
end
`;

export const loadGenerator = hasWrk ? 'wrk' : 'node (undici, child process)';

// One script per process, written once: rewriting it for every run would let a run that starts while
// another is being written read it half written (ab.ts with AB_AT_ONCE runs wrk against each tree at once).
let script: string | undefined;

async function withWrk(options: LoadOptions): Promise<LoadResult> {
  if (!script) writeFileSync((script = join(tmpdir(), `simrs-bench-wrk-${process.pid}.lua`)), REPORT);
  const seconds = Math.max(1, Math.round((options.durationMs ?? 5_000) / 1000));
  const headers = Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const { stdout } = await run(
    'wrk',
    ['-t1', `-c${options.connections ?? 50}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, ...headers, options.url],
    { timeout: (seconds + 30) * 1000 },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk printed no summary:\n${stdout}`);
  const r = JSON.parse(line.slice('WRK_JSON '.length)) as Record<string, number>;
  const ok = r.requests! - r.errors!;
  return {
    requests: ok,
    errors: r.errors!,
    rps: ok / (r.duration_us! / 1e6),
    p50: r.p50_us! / 1000,
    p95: r.p95_us! / 1000,
    p99: r.p99_us! / 1000,
  };
}

async function withNodeChild(options: LoadOptions): Promise<LoadResult> {
  const loader = fileURLToPath(new URL('./load.ts', import.meta.url));
  const { stdout } = await run(process.execPath, [loader, JSON.stringify(options)], {
    timeout: (options.durationMs ?? 5_000) + (options.warmupMs ?? 1_000) + 30_000,
  });
  return JSON.parse(stdout) as LoadResult;
}

/** A closed-loop load run against `options.url` from another process (no warm-up: run one first). */
export function loadFromChild(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) throw new Error('load tests target loopback only');
  return hasWrk && (options.method ?? 'GET') === 'GET' ? withWrk(options) : withNodeChild({ ...options, warmupMs: 0 });
}

/** What the figures were measured beside: the machine's load and the load generator. */
export function conditions(): string {
  const [one, five] = os.loadavg();
  return `${os.cpus().length} cores, load average ${one!.toFixed(2)} / ${five!.toFixed(2)} (1 / 5 min), load generator: ${loadGenerator}`;
}
