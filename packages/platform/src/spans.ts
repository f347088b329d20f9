// What a service knows about a request that the HTTP instrumentation does not: the route or procedure
// (the span's name), the tenant. Handlers annotate the incoming request; telemetry.ts applies the
// annotation to the HTTP server span when the response ends, together with `simrs.outcome`.
import type { IncomingMessage } from 'node:http';
import { context, createContextKey } from '@opentelemetry/api';
import type { Attributes, Span } from '@opentelemetry/api';

export type Outcome = 'ok' | 'client_error' | 'server_error';

export const ATTR_TENANT = 'simrs.tenant_id';
export const ATTR_OUTCOME = 'simrs.outcome';

/**
 * Whether spans leave the process (an OTLP endpoint or a traces exporter is configured); when not,
 * telemetry.ts records none, so a library's own spans are work nobody can see.
 */
export function tracesExported(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_TRACES_EXPORTER);
}

const instrumented = new Set<string>();

/** Called by telemetry.ts for each instrumentation it turns on. */
export function markInstrumented(name: string): void {
  instrumented.add(name);
}

/** Whether telemetry.ts turned on an instrumentation (`http`, `undici`, ...) in this process. */
export function instrumentationEnabled(name: string): boolean {
  return instrumented.has(name);
}

export function outcomeOf(status: number): Outcome {
  return status >= 500 ? 'server_error' : status >= 400 ? 'client_error' : 'ok';
}

interface Annotation {
  /** The span name, e.g. `GET /trpc/pasien.list` or `pasien.list`. */
  name?: string;
  /** The route for `http.route` and the HTTP server metrics, e.g. `/trpc/pasien.list`. */
  route?: string;
  attributes: Attributes;
}

const annotations = new WeakMap<IncomingMessage, Annotation>();

// The key of @opentelemetry/core's getRPCMetadata (createContextKey is Symbol.for, so it is the same
// key the HTTP instrumentation sets): its `route` becomes `http.route` and the span's name.
const RPC_METADATA = createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

/**
 * Names the server span of `req` and adds attributes to it (applied when the response ends). Without
 * the HTTP instrumentation there is no such span, and nothing is kept.
 */
export function annotateRequest(
  req: IncomingMessage,
  annotation: { name?: string; route?: string; tenantId?: string; attributes?: Attributes },
): void {
  if (!instrumented.has('http')) return;
  const current = annotations.get(req) ?? { attributes: {} };
  if (annotation.name !== undefined) current.name = annotation.name;
  if (annotation.route !== undefined) current.route = annotation.route;
  if (annotation.tenantId) current.attributes[ATTR_TENANT] = annotation.tenantId;
  Object.assign(current.attributes, annotation.attributes);
  annotations.set(req, current);
  if (annotation.route !== undefined) {
    const rpc = context.active().getValue(RPC_METADATA) as { type?: string; route?: string } | undefined;
    if (rpc?.type === 'http') rpc.route = annotation.route;
  }
}

/** Called by the HTTP instrumentation's applyCustomAttributesOnSpan, just before the span ends. */
export function applyAnnotation(span: Span, req: IncomingMessage, status: number | undefined): void {
  const annotation = annotations.get(req);
  if (annotation?.route) span.setAttribute('http.route', annotation.route);
  if (annotation?.name) span.updateName(annotation.name);
  if (annotation) span.setAttributes(annotation.attributes);
  if (status !== undefined) span.setAttribute(ATTR_OUTCOME, outcomeOf(status));
}

// The context key of @opentelemetry/core's suppressTracing() (Symbol.for, so the SDK's own key).
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/** Runs background work (metric scrapes, polls) without exporting root spans for it. */
export function untraced<T>(fn: () => Promise<T>): Promise<T> {
  return context.with(context.active().setValue(SUPPRESS_TRACING, true), fn);
}
