// Trace context in records. While spans are exported, OpenTelemetry's HTTP instrumentation makes the
// server span of each request. While they are not (the default), nobody reads that span, and its work
// on every request (attributes parsed from the URL and headers, the request and response bound to the
// context, its own metric attributes) was the largest part of what telemetry cost a `pasien.list`. So
// instrumentation.ts leaves it off then, and this module does what of it is still needed: the caller's
// trace is continued (same trace id, so audit rows, logs and Postgres spans carry it), and
// `http.server.request.duration` is recorded per route as the instrumentation records it. With the
// instrumentation on, this module does nothing. (The gateway does the same in its server/tracing.ts.)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, ValueType } from '@opentelemetry/api';
import { meter } from '@simrs/platform/metrics';
import { instrumentationEnabled } from '@simrs/platform/spans';

const tracer = trace.getTracer('simrs.records');
// The instrumentation's metric: same name, unit, buckets and attributes (semantic conventions 1.2x).
const serverDuration = meter('records').createHistogram('http.server.request.duration', {
  description: 'Duration of HTTP server requests.',
  unit: 's',
  valueType: ValueType.DOUBLE,
  advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] },
});
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);

/**
 * Whether the HTTP instrumentation makes the server spans (read once, after startTelemetry): only then
 * do their annotations (platform's annotateRequest: the span's name, route and tenant) reach a span.
 */
export const serverSpans = instrumentationEnabled('http');

/**
 * Runs `next` in the request's trace context: the caller's (W3C `traceparent`), continued by a span
 * of records' own; a new trace when the caller sent none. Sampling is the tracer provider's, as for
 * the instrumentation: unsampled, the span only carries ids.
 */
export function inTraceContext(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (serverSpans) return next();
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(req.method ?? 'GET', { kind: SpanKind.SERVER }, parent);
  if (span.isRecording()) res.once('close', () => span.end());
  context.with(trace.setSpan(parent, span), next);
}

/** `http.server.request.duration` of an answered request, unless the HTTP instrumentation records it. */
export function recordServerDuration(req: IncomingMessage, status: number, route: string | undefined, seconds: number): void {
  if (serverSpans) return;
  const method = req.method !== undefined && KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
  serverDuration.record(seconds, {
    'http.request.method': method,
    'url.scheme': 'http',
    'network.protocol.version': req.httpVersion,
    'http.response.status_code': status,
    ...(route !== undefined ? { 'http.route': route } : {}),
    ...(status >= 500 ? { 'error.type': String(status) } : {}),
  });
}
