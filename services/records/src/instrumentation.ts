import { startTelemetry } from '@simrs/platform/telemetry';

// Nothing of records' own is imported here: it would load before the SDK is started (and meter
// nothing). server/tracing.ts does without the HTTP instrumentation while spans are not exported.
await startTelemetry('records', { spansOnly: ['http'] });
