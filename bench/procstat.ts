// A process's own counters, read from /proc: CPU time (user + system) and resident memory. The bench
// reads them for each service before and after a load run, so CPU per request is what the service
// itself spent, not what the load generator or Postgres did. Linux only.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/** How long a service is left alone before its idle RSS is read: past the idle reclaim's 30 quiet seconds. */
export const IDLE_WAIT_MS = 35_000;

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at "state" (field 3).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Resident set size in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

export interface Usage {
  /** CPU seconds used during the run, per process name. */
  cpu: Record<string, number>;
  /** Highest RSS seen during the run, per process name (MB). */
  peakRss: Record<string, number>;
}

/** Runs `work` while sampling the processes' RSS; returns their CPU used and peak RSS. */
export async function measureUsage<T>(pids: Record<string, number>, work: () => Promise<T>): Promise<{ result: T; usage: Usage }> {
  const names = Object.keys(pids);
  const before = Object.fromEntries(names.map((n) => [n, cpuSeconds(pids[n]!)]));
  const peakRss = Object.fromEntries(names.map((n) => [n, rssMb(pids[n]!)]));
  const sample = () => {
    for (const n of names) peakRss[n] = Math.max(peakRss[n]!, rssMb(pids[n]!));
  };
  const timer = setInterval(sample, 200);
  try {
    const result = await work();
    sample();
    const cpu = Object.fromEntries(names.map((n) => [n, cpuSeconds(pids[n]!) - before[n]!]));
    return { result, usage: { cpu, peakRss } };
  } finally {
    clearInterval(timer);
  }
}

/**
 * CPU seconds of this process's children that have exited and been waited for (cutime + cstime): the
 * load generator (wrk) runs as a child that is reaped before its run resolves, so the difference across
 * a run is wrk's own CPU, which /proc/<wrk pid> no longer holds by then.
 */
export function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/** CPU seconds of each process still alive, by pid (a process gone since is left out). */
export function cpuByPid(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      out.set(pid, cpuSeconds(pid));
    } catch {
      // exited: its CPU cannot be read any more
    }
  }
  return out;
}

/** CPU used between two cpuByPid snapshots by the processes present in both. */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, cpu] of after) if (before.has(pid)) sum += cpu - before.get(pid)!;
  return sum;
}

/** Pids of the processes named `comm` (as in /proc/<pid>/comm) whose command line contains `needle`. */
export function pidsOf(comm: string, needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
