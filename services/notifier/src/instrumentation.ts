// Loaded with `node --import ./src/instrumentation.ts` before the application (see DESIGN.md).
import { startTelemetryInMainThread } from '@simrs/platform/telemetry-preload';

await startTelemetryInMainThread('notifier');
