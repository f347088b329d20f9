import { startTelemetryInMainThread } from '@simrs/platform/telemetry-preload';

await startTelemetryInMainThread('identity');
