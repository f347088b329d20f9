import { startTelemetryInMainThread } from '@simrs/platform/telemetry-preload';

// Nothing of the gateway's own is imported here: it would load before the SDK is started (and meter
// nothing). server/tracing.ts does without these two while spans are not exported.
await startTelemetryInMainThread('gateway', { spansOnly: ['http', 'undici'] });
