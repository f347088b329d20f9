// What each service's `--import` preload (its instrumentation.ts) calls. A worker thread started from a
// file runs the process's preload too, as records' export lanes do. The process's telemetry is the main
// thread's, where Prometheus reads /metrics: a worker starts none and does not load the SDK, which would
// put every instrumentation into its heap, meter into a provider nobody reads, and trace the worker's
// statements as spans of no request.
import { isMainThread } from 'node:worker_threads';
import type { TelemetryOptions } from './telemetry.ts';

export async function startTelemetryInMainThread(serviceName: string, options?: TelemetryOptions): Promise<void> {
  if (!isMainThread) return;
  const { startTelemetry } = await import('./telemetry.ts');
  await startTelemetry(serviceName, options);
}
