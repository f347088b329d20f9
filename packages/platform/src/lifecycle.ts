// Ordered, bounded shutdown: on SIGTERM (Kubernetes), SIGINT (Ctrl-C) or the loss of a supervising parent
// (npm start) stop taking work, drain, close pools, flush telemetry, exit. Steps run in registration order, telemetry last.
import type { Logger } from './logger.ts';

type Step = { name: string; run: () => Promise<unknown> | unknown };
const steps: Step[] = [];
const finalSteps: Step[] = [];
let stopping: Promise<void> | undefined;

export function onShutdown(name: string, run: Step['run']): void {
  steps.push({ name, run });
}

/** For telemetry: runs after every other step so that their spans are flushed too. */
export function onShutdownLast(name: string, run: Step['run']): void {
  finalSteps.push({ name, run });
}

export function shutdown(log: Logger, reason: string, timeoutMs = 10_000): Promise<void> {
  stopping ??= (async () => {
    log.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown took too long, exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    for (const step of [...steps, ...finalSteps]) {
      try {
        await step.run();
      } catch (err) {
        log.warn({ err, step: step.name }, 'shutdown step failed');
      }
    }
    clearTimeout(timer);
  })();
  return stopping;
}

export function handleSignals(log: Logger): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(log, signal).then(() => process.exit(0)));
  }
  // A supervisor that starts the service with an IPC channel (npm start) may die without signalling it
  // (SIGKILL, a crash); the channel closing is then the only news, so it counts as SIGTERM. Only such a
  // supervisor opens the channel: in a container there is none and nothing changes.
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => void shutdown(log, 'supervisor gone').then(() => process.exit(0)));
  }
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
}
