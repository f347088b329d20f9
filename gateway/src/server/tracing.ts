// Trace context at the gateway. While spans are exported, OpenTelemetry's HTTP and undici
// instrumentations make the server span of each request and the client span of its proxied call, and
// pass trace context on. While they are not (the default), nobody reads those spans, and their work on
// every request (attributes parsed from the request, the request and response bound to the context, a
// client span and its metric per proxied call) was most of what telemetry cost a proxied request. So
// instrumentation.ts leaves them off then, and this module does what of them is still needed: the
// caller's trace goes on (same trace id, the gateway's own span id as the parent upstream), logs and
// gRPC calls carry it, and `http.server.request.duration` is recorded per route as the instrumentation
// records it. Whichever instrumentation is on does its own part, and this module then does nothing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, ValueType } from '@opentelemetry/api';
import { meter } from '@simrs/platform/metrics';
import { instrumentationEnabled } from '@simrs/platform/spans';

const tracer = trace.getTracer('simrs.gateway');
// The instrumentation's metric: same name, unit, buckets and attributes (semantic conventions 1.2x).
const serverDuration = meter('gateway').createHistogram('http.server.request.duration', {
  description: 'Duration of HTTP server requests.',
  unit: 's',
  valueType: ValueType.DOUBLE,
  advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] },
});
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);

/** Whether the HTTP instrumentation makes the server spans (and so names them): read once, after startTelemetry. */
export const serverSpans = instrumentationEnabled('http');
const clientSpans = instrumentationEnabled('undici');

/**
 * Runs `next` in the request's trace context: the caller's (W3C `traceparent`), continued by a span
 * of the gateway's; a new trace when the caller sent none. Sampling is the tracer provider's, as for
 * the instrumentation: unsampled, the span only carries ids.
 */
export function inTraceContext(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (serverSpans) return next();
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(req.method ?? 'GET', { kind: SpanKind.SERVER }, parent);
  if (span.isRecording()) res.once('close', () => span.end());
  context.with(trace.setSpan(parent, span), next);
}

/** Adds the current trace context to a proxied request's headers, unless the undici instrumentation does. */
export function injectTraceContext(headers: Record<string, string | string[]>): void {
  if (!clientSpans) propagation.inject(context.active(), headers);
}

/** `http.server.request.duration` of an answered request, unless the HTTP instrumentation records it. */
export function recordServerDuration(req: IncomingMessage, status: number, route: string, seconds: number): void {
  if (serverSpans) return;
  const method = req.method !== undefined && KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
  serverDuration.record(seconds, {
    'http.request.method': method,
    'url.scheme': 'http',
    'network.protocol.version': req.httpVersion,
    'http.response.status_code': status,
    'http.route': route,
    ...(status >= 500 ? { 'error.type': String(status) } : {}),
  });
}
