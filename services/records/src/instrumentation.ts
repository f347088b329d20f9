import { isMainThread } from 'node:worker_threads';

// Nothing of records' own is imported here: it would load before the SDK is started (and meter
// nothing). server/tracing.ts does without the HTTP instrumentation while spans are not exported.
//
// The export's lanes are worker threads, and a worker runs this preload too. The process's telemetry is
// the main thread's (Prometheus reads /metrics there), so a lane starts none: a second SDK in it would
// load every instrumentation into the lane's heap, meter into a provider nobody reads, and trace each
// page's statements as spans of no request.
if (isMainThread) {
  const { startTelemetry } = await import('@simrs/platform/telemetry');
  await startTelemetry('records', { spansOnly: ['http'] });
}
