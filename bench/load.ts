// A small closed-loop load generator: `connections` requests in flight over keep-alive connections for
// a fixed time, recording each latency. Bounded in time; loopback targets only. Also the figures every
// bench part reports with: percentiles, a window's summary, the printed table.
import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationMs?: number;
  warmupMs?: number;
  /** Status considered success. */
  expect?: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Throughput and latency percentiles of one measured window (sorts `latencies` in place). */
export function summarize(latencies: number[], errors: number, seconds: number): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) throw new Error('load tests target loopback only');
  const connections = options.connections ?? 50;
  const pool = new Pool(url.origin, { connections });
  const path = url.pathname + url.search;
  const expect = options.expect ?? 200;
  const latencies: number[] = [];
  let errors = 0;
  let recording = false;
  const warmupEnd = Date.now() + (options.warmupMs ?? 1_000);
  const end = warmupEnd + (options.durationMs ?? 5_000);

  async function worker(): Promise<void> {
    while (Date.now() < end) {
      if (!recording && Date.now() >= warmupEnd) recording = true;
      const started = performance.now();
      try {
        const res = await pool.request({ method: options.method ?? 'GET', path, headers: options.headers, body: options.body });
        await res.body.dump();
        if (recording) {
          if (res.statusCode === expect) latencies.push(performance.now() - started);
          else errors++;
        }
      } catch {
        if (recording) errors++;
      }
    }
  }
  const measuredFrom = warmupEnd;
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (Date.now() - Math.max(measuredFrom, 0)) / 1000;
  await pool.close();
  return summarize(latencies, errors, seconds);
}

/** Prints rows as an aligned text table. */
export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c] ?? '').length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n${title}`);
  console.log(line(columns));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(columns.map((c) => cell(r[c] ?? ''))));
}

// `node bench/load.ts '<LoadOptions as JSON>'`: the child-process form used by wrk.ts when wrk is absent.
if (import.meta.main) {
  process.stdout.write(JSON.stringify(await load(JSON.parse(process.argv[2]!) as LoadOptions)));
}
