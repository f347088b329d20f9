// Records' trace context and server metric without the HTTP instrumentation (platform's
// server-tracing.ts). Only with the instrumentation on do the server span's annotations (platform's
// annotateRequest: the span's name, route and tenant) reach a span; without it they are not kept.
import { serverTracing } from '@simrs/platform/server-tracing';

export const { inTraceContext, recordServerDuration } = serverTracing('records');
