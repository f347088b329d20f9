// Background work on a timer (sweeps of expired rows): one run at a time, a run that fails does not stop
// the next, and stop() lets the run in hand end, telling it through `stopping` so that it can stop
// between statements, before the service closes its pools.

export interface Periodic {
  stop(): Promise<void>;
}

/** Runs `work` every `everyMs` (never two at once; a tick that finds one running is skipped). */
export function runPeriodically(work: (stopping: () => boolean) => Promise<void>, everyMs: number): Periodic {
  let stopping = false;
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running || stopping) return;
    running = work(() => stopping)
      .catch(() => {}) // `work` reports its own failures; the next tick tries again
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
