import { startTelemetry } from '@simrs/platform/telemetry';

await startTelemetry('gateway');
