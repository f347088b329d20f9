// The gateway's trace context (platform's server-tracing.ts), and for its proxied calls what the
// undici instrumentation does while spans are exported: the current trace context passed upstream.
// Without exported spans the undici instrumentation is off too: its client span and metric per proxied
// call fed only spans nobody reads.
import { context, propagation } from '@opentelemetry/api';
import { serverTracing } from '@simrs/platform/server-tracing';
import { instrumentationEnabled } from '@simrs/platform/spans';

export const { serverSpans, inTraceContext, recordServerDuration } = serverTracing('gateway');
const clientSpans = instrumentationEnabled('undici');

/** Adds the current trace context to a proxied request's headers, unless the undici instrumentation does. */
export function injectTraceContext(headers: Record<string, string | string[]>): void {
  if (!clientSpans) propagation.inject(context.active(), headers);
}
