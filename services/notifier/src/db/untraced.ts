// Background queries against the message store (the worker's poll, readiness probes, metric scrapes)
// run every few seconds and would each export a root pg span with no request behind it. `untraced`
// runs them with tracing suppressed, using the context key of @opentelemetry/core's suppressTracing()
// (createContextKey is Symbol.for, so the key is the same one the SDK's tracer checks).
import { context, createContextKey } from '@opentelemetry/api';

const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

export function untraced<T>(fn: () => Promise<T>): Promise<T> {
  return context.with(context.active().setValue(SUPPRESS_TRACING, true), fn);
}
