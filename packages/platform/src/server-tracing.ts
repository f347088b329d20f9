// Trace context at a service's HTTP server without OpenTelemetry's HTTP instrumentation. While spans
// are exported, the instrumentation makes the server span of each request and passes trace context
// on. While they are not (the default), nobody reads those spans, and the instrumentation's work on
// every request (attributes parsed from the URL and headers, the request and response bound to the
// context, its own metric attributes) was the largest part of what telemetry cost a request. So the
// services' instrumentation.ts leaves it off then (startTelemetry's `spansOnly`), and this module does
// what of it is still needed: the caller's trace goes on (same trace id, the service's own span id, so
// logs, audit rows, gRPC and Postgres spans carry it), and `http.server.request.duration` is recorded
// per route as the instrumentation records it. With the instrumentation on, this module does nothing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, ValueType } from '@opentelemetry/api';
import { meter } from './metrics.ts';
import { instrumentationEnabled } from './spans.ts';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);

export interface ServerTracing {
  /** Whether the HTTP instrumentation makes the server spans (and so names and annotates them). */
  readonly serverSpans: boolean;
  /**
   * Runs `next` in the request's trace context: the caller's (W3C `traceparent`), continued by a span
   * of the service's; a new trace when the caller sent none. Sampling is the tracer provider's, as for
   * the instrumentation: unsampled, the span only carries ids.
   */
  inTraceContext(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** `http.server.request.duration` of an answered request, unless the HTTP instrumentation records it. */
  recordServerDuration(req: IncomingMessage, status: number, route: string | undefined, seconds: number): void;
}

/** The service's server tracing: call once, after startTelemetry (which decides whether the instrumentation is on). */
export function serverTracing(service: string): ServerTracing {
  const serverSpans = instrumentationEnabled('http');
  const tracer = trace.getTracer(`simrs.${service}`);
  // The instrumentation's metric: same name, unit, buckets and attributes (semantic conventions 1.2x).
  const serverDuration = meter(service).createHistogram('http.server.request.duration', {
    description: 'Duration of HTTP server requests.',
    unit: 's',
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] },
  });
  return {
    serverSpans,
    inTraceContext(req, res, next) {
      if (serverSpans) return next();
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const span = tracer.startSpan(req.method ?? 'GET', { kind: SpanKind.SERVER }, parent);
      if (span.isRecording()) res.once('close', () => span.end());
      context.with(trace.setSpan(parent, span), next);
    },
    recordServerDuration(req, status, route, seconds) {
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
    },
  };
}
