// OpenTelemetry for every service, loaded with `node --import ./src/instrumentation.ts` before the
// application so that the ESM loader hook sees express, pg, ioredis and grpc-js being imported.
// Configured only through the standard OTEL_* variables. Without an exporter configured, spans are
// still created (trace ids in logs, W3C context passed on) and simply dropped.
import { register } from 'node:module';
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

const NOT_TRACED = new Set(['/healthz', '/readyz', '/metrics']);

function instrumentations(): Instrumentation[] {
  const all: Record<string, () => Instrumentation> = {
    http: () =>
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => NOT_TRACED.has((req.url ?? '').split('?')[0] ?? ''),
        // Never record query strings: magic-link tokens and OAuth codes travel there.
        headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] } },
      }),
    express: () => new ExpressInstrumentation(),
    pg: () => new PgInstrumentation({ enhancedDatabaseReporting: false }),
    ioredis: () => new IORedisInstrumentation({ dbStatementSerializer: (cmd) => cmd }),
    grpc: () => new GrpcInstrumentation(),
    undici: () => new UndiciInstrumentation(),
  };
  // The standard switch of auto-instrumentations-node, honoured here for the ones we ship.
  const enabled = (process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS ?? Object.keys(all).join(','))
    .split(',')
    .map((s) => s.trim());
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
