// Loaded with `node --import ./src/instrumentation.ts` before the application (see DESIGN.md).
import { startTelemetry } from '@simrs/platform/telemetry';

await startTelemetry('notifier');
