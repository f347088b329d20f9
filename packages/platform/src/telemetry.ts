// OpenTelemetry for every service, loaded with `node --import ./src/instrumentation.ts` before the
// application so that the ESM loader hook sees express, pg, ioredis and grpc-js being imported.
// Configured only through the standard OTEL_* variables. Without an exporter configured, spans are
// still created (trace ids in logs, W3C context passed on) and simply dropped.
import { ServerResponse } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { register } from 'node:module';
import type { Attributes } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { onShutdownLast } from './lifecycle.ts';
import { normalizePath, redactQuery, redactUrl } from './redact.ts';
import { applyAnnotation } from './spans.ts';

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

function instrumentations(): Instrumentation[] {
  const all: Record<string, () => Instrumentation> = {
    http: () =>
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => NOT_TRACED.has((req.url ?? '').split('?')[0] ?? ''),
        // Never record query strings: magic-link tokens, OAuth codes and tRPC input travel there.
        headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] } },
        startIncomingSpanHook: (req) => incomingUrlAttributes(req.url ?? '/'),
        startOutgoingSpanHook: (options) => ({
          [ATTR_URL_FULL]: redactUrl(
            `${options.protocol ?? 'http:'}//${options.hostname ?? options.host ?? ''}${options.port ? `:${options.port}` : ''}${options.path ?? '/'}`,
          ),
        }),
        // Route, span name, tenant (spans.ts annotations) and simrs.outcome on server spans.
        applyCustomAttributesOnSpan: (span, request, response) => {
          if (!(response instanceof ServerResponse)) return;
          applyAnnotation(span, request as IncomingMessage, response.statusCode);
        },
      }),
    express: () => new ExpressInstrumentation(),
    pg: () => new PgInstrumentation({ enhancedDatabaseReporting: false }),
    ioredis: () => new IORedisInstrumentation({ dbStatementSerializer: (cmd) => cmd }),
    grpc: () => new GrpcInstrumentation(),
    undici: () =>
      new UndiciInstrumentation({
        // The gateway's proxied calls carry tRPC input in the query string: never recorded.
        startSpanHook: (request) => {
          const url = `${request.origin}${request.path}`;
          const q = request.path.indexOf('?');
          return {
            [ATTR_URL_FULL]: redactUrl(url),
            [ATTR_URL_PATH]: normalizePath(q >= 0 ? request.path.slice(0, q) : request.path),
            [ATTR_URL_QUERY]: q >= 0 ? redactQuery(request.path.slice(q)) : '',
          };
        },
      }),
  };
  // The standard switch of auto-instrumentations-node, honoured here for the ones we ship.
  const enabled = (process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS ?? Object.keys(all).join(',')).split(',').map((s) => s.trim());
  return Object.entries(all)
    .filter(([name]) => enabled.includes(name))
    .map(([, make]) => make());
}

const dropSpans: SpanProcessor = {
  onStart() {},
  onEnd() {},
  forceFlush: async () => {},
  shutdown: async () => {},
};

/**
 * Metrics are read by Prometheus from GET /metrics on each service's own HTTP port (served by
 * serveHealth), so there is no extra port to expose or to allow in NetworkPolicies.
 */
export const prometheus = new PrometheusExporter({ preventServerStart: true });

export function startTelemetry(serviceName: string): void {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const exporting = Boolean(
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_TRACES_EXPORTER,
  );
  const sdk = new NodeSDK({
    instrumentations: instrumentations(),
    metricReaders: [prometheus],
    ...(exporting ? {} : { spanProcessors: [dropSpans] }),
  });
  sdk.start();
  onShutdownLast('telemetry', () => sdk.shutdown());
}
