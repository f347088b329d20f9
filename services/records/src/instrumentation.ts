import { startTelemetryInMainThread } from '@simrs/platform/telemetry-preload';

// Nothing of records' own is imported here: it would load before the SDK is started (and meter
// nothing). server/tracing.ts does without the HTTP instrumentation while spans are not exported.
// The export's lanes are worker threads: they run this preload too, and start no telemetry.
await startTelemetryInMainThread('records', { spansOnly: ['http'] });
