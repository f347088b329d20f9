// OpenTelemetry for every service, loaded with `node --import ./src/instrumentation.ts` before the
// application so that the ESM loader hook sees express, pg, ioredis and grpc-js being imported.
// Configured only through the standard OTEL_* variables. Without an exporter configured, spans are
// not recorded (nothing would read them) but still carry context: every request still gets a trace id
// (in logs and audit rows) and passes W3C trace context on; a parent that was sampled is still honoured.
// With an exporter, OTEL_TRACES_SAMPLER (e.g. parentbased_traceidratio) chooses how many are recorded.
import { ServerResponse } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { register } from 'node:module';
import type { Attributes } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { register as registerHooksInThread, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { AlwaysOffSampler, ParentBasedSampler } from '@opentelemetry/sdk-trace';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { onShutdownLast } from './lifecycle.ts';
import { startSdk } from './otel-sdk.ts';
import { startIdleReclaim } from './reclaim.ts';
import { observeResidentMemory, RUNTIME_INSTRUMENTATION, runtimeInstrumentation } from './runtime-metrics.ts';
import { normalizePath, redactQuery, redactUrl } from './redact.ts';
import { applyAnnotation, markInstrumented, tracesExported } from './spans.ts';

/** What the instrumentations below hook by name (their InstrumentationNodeModuleDefinition). */
const INSTRUMENTED_MODULES = ['express', 'pg', 'pg-pool', 'ioredis', '@grpc/grpc-js', 'http', 'https', 'node:http', 'node:https'];

const NOT_TRACED = new Set(['/healthz', '/readyz', '/metrics']);

const ATTR_URL_FULL = 'url.full';
const ATTR_URL_PATH = 'url.path';
const ATTR_URL_QUERY = 'url.query';

/** Overrides what the HTTP instrumentation records of an incoming URL (path ids, query values). */
function incomingUrlAttributes(url: string): Attributes {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  return { [ATTR_URL_PATH]: normalizePath(path), ...(q >= 0 ? { [ATTR_URL_QUERY]: redactQuery(url.slice(q)) } : {}) };
}

/**
 * On unless OTEL_NODE_ENABLED_INSTRUMENTATIONS names them. Express: the one Express app (the gateway)
 * mounts every route as middleware, whose layers make no span (see below); the instrumentation still
 * wrapped every layer of every request, for nothing.
 */
const OFF_BY_DEFAULT = new Set(['express']);
/** Instrumentations that only make spans (no metrics, no context passed on): on only when spans are exported. */
const SPANS_ONLY = new Set(['ioredis']);

export interface TelemetryOptions {
  /**
   * Instrumentations this service turns on only while spans are exported, because without spans it
   * does itself what else they do (the gateway passes trace context on and records the HTTP server
   * metric in its own request path). spans.ts's instrumentationEnabled tells which are on.
   */
  spansOnly?: string[];
}

function instrumentations(exporting: boolean, spansOnly: ReadonlySet<string>): Instrumentation[] {
  // The URL attributes below exist to keep query values and ids out of exported spans. Not exporting,
  // no span leaves the process (dropSpans), so they are not computed on every request for nothing.
  const redacting = <T extends object>(hooks: T): T | Record<string, never> => (exporting ? hooks : {});
  const all: Record<string, () => Instrumentation> = {
    http: () =>
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => NOT_TRACED.has((req.url ?? '').split('?')[0] ?? ''),
        // Never record query strings: magic-link tokens, OAuth codes and tRPC input travel there.
        headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] } },
        ...redacting({
          startIncomingSpanHook: (req: IncomingMessage) => incomingUrlAttributes(req.url ?? '/'),
          startOutgoingSpanHook: (options: RequestOptions) => ({
            [ATTR_URL_FULL]: redactUrl(
              `${options.protocol ?? 'http:'}//${options.hostname ?? options.host ?? ''}${options.port ? `:${options.port}` : ''}${options.path ?? '/'}`,
            ),
          }),
        }),
        // Route, span name, tenant (spans.ts annotations) and simrs.outcome on server spans.
        applyCustomAttributesOnSpan: (span, request, response) => {
          if (!(response instanceof ServerResponse)) return;
          applyAnnotation(span, request as IncomingMessage, response.statusCode);
        },
      }),
    // A span per middleware (helmet, cors, the API path's steps) on every request is cost without
    // insight: the server span is named after the route (spans.ts) and the upstream call has its own.
    express: () => new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    // Waiting for a pooled connection is a span only when spans are exported (the pool has its metrics).
    pg: () => new PgInstrumentation({ enhancedDatabaseReporting: false, ignoreConnectSpans: !exporting }),
    ioredis: () => new IORedisInstrumentation({ dbStatementSerializer: (cmd) => cmd }),
    grpc: () => new GrpcInstrumentation(),
    undici: () =>
      new UndiciInstrumentation({
        // The gateway's proxied calls carry tRPC input in the query string: never recorded.
        ...redacting({
          startSpanHook: (request: { origin: string; path: string }) => {
            const url = `${request.origin}${request.path}`;
            const q = request.path.indexOf('?');
            return {
              [ATTR_URL_FULL]: redactUrl(url),
              [ATTR_URL_PATH]: normalizePath(q >= 0 ? request.path.slice(0, q) : request.path),
              [ATTR_URL_QUERY]: q >= 0 ? redactQuery(request.path.slice(q)) : '',
            };
          },
        }),
      }),
    [RUNTIME_INSTRUMENTATION]: runtimeInstrumentation,
  };
  // The standard switch of auto-instrumentations-node, honoured here for the ones we ship.
  const defaults = Object.keys(all).filter((name) => !OFF_BY_DEFAULT.has(name) && (exporting || !spansOnly.has(name)));
  const enabled = (process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS ?? defaults.join(',')).split(',').map((s) => s.trim());
  return Object.entries(all)
    .filter(([name]) => enabled.includes(name))
    .map(([name, make]) => {
      markInstrumented(name);
      return make();
    });
}

const dropSpans: SpanProcessor = {
  onStart() {},
  onEnd() {},
  forceFlush: async () => {},
  shutdown: async () => {},
};

/**
 * Metrics are read by Prometheus from GET /metrics on each service's own HTTP port (served by
 * serveHealth), so there is no extra port to expose or to allow in NetworkPolicies. Every series
 * carries `service_name`: the runtime metrics have the same names in every service, and a scrape
 * configuration need not add a label that tells them apart.
 */
export const prometheus = new PrometheusExporter({ preventServerStart: true, withResourceConstantLabels: /^service\.name$/ });

/** Awaited by each service's instrumentation.ts (a top-level await), so it is done before the application loads. */
export async function startTelemetry(serviceName: string, options: TelemetryOptions = {}): Promise<void> {
  // In-thread loader hooks where Node supports them: module.register() would start a loader thread, a
  // second V8 isolate alive for the whole process (tens of MB) and a message round trip per module.
  // Only the modules an instrumentation patches are wrapped; every other module loads untouched.
  if (supportsSyncHooks()) registerHooksInThread({ include: INSTRUMENTED_MODULES });
  else register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const exporting = tracesExported();
  const sdk = await startSdk({
    instrumentations: instrumentations(exporting, new Set([...SPANS_ONLY, ...(options.spansOnly ?? [])])),
    metricReaders: [prometheus],
    // Not exporting: spans that nobody reads are not recorded (a non-recording span still has a trace id
    // and propagates), unless the caller's context says its trace is sampled.
    ...(exporting ? {} : { spanProcessors: [dropSpans] }),
    ...(exporting || process.env.OTEL_TRACES_SAMPLER ? {} : { sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) }),
  });
  onShutdownLast('telemetry', () => sdk.shutdown());
  observeResidentMemory();
  // Plumbing every service gets from here: memory back to the system after busy spells.
  const reclaimer = startIdleReclaim();
  if (reclaimer) onShutdownLast('idle reclaim', () => reclaimer.stop());
}
