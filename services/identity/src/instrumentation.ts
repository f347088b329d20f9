import { startTelemetry } from '@simrs/platform/telemetry';

startTelemetry('identity');
