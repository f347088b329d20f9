// Starts the OpenTelemetry SDK for telemetry.ts. @opentelemetry/sdk-node's NodeSDK imports every
// exporter it could build from the environment (OTLP traces, metrics and logs over gRPC, HTTP/JSON and
// HTTP/protobuf, Zipkin, B3, the declarative-configuration loader with its YAML parser): about 170
// modules and 10 MB of every service's memory, whether or not one is configured (issue 18). In the
// services' default setup (no trace exporter, no log exporter, metrics read by Prometheus from /metrics)
// none of them is used, so `startLeanSdk` wires the same pieces NodeSDK.start() wires for that setup
// (instrumentations, AsyncLocalStorage context, W3C propagators, resource, meter and tracer providers)
// from the small packages alone. Any other setting (an exporter, a sampler, B3, resource detectors,
// OTEL_SDK_DISABLED) takes NodeSDK, imported only then, so its behaviour stays exactly what it was.
import { context, diag, DiagConsoleLogger, metrics, propagation, trace } from '@opentelemetry/api';
import type { TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, diagLogLevelFromString, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { defaultResource, detectResources, envDetector, hostDetector, processDetector } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace';

export interface SdkSetup {
  instrumentations: Instrumentation[];
  metricReaders: MetricReader[];
  /** Only when spans are not exported: the processor that drops them. */
  spanProcessors?: SpanProcessor[];
  /** Only when OTEL_TRACES_SAMPLER is unset. */
  sampler?: Sampler;
}

export interface Sdk {
  shutdown(): Promise<void>;
}

const LEAN_PROPAGATORS = new Set(['tracecontext', 'baggage', 'none']);

/**
 * Whether the lean start covers this environment. It covers the defaults (and OTEL_LOG_LEVEL, the
 * W3C propagators); everything else is NodeSDK's to interpret.
 */
export function leanSdkCovers(setup: SdkSetup, env: NodeJS.ProcessEnv = process.env): boolean {
  const propagators = (env.OTEL_PROPAGATORS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return (
    setup.spanProcessors !== undefined &&
    setup.sampler !== undefined &&
    (env.OTEL_LOGS_EXPORTER ?? 'none') === 'none' &&
    !env.OTEL_SDK_DISABLED &&
    !env.OTEL_NODE_RESOURCE_DETECTORS &&
    !env.OTEL_NODE_EXPERIMENTAL_SDK_METRICS &&
    propagators.every((p) => LEAN_PROPAGATORS.has(p))
  );
}

function propagatorFromEnv(env: NodeJS.ProcessEnv): TextMapPropagator | null {
  const names = [
    ...new Set(
      (env.OTEL_PROPAGATORS ?? 'tracecontext,baggage')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (names.includes('none') || names.length === 0) return null;
  const make = (name: string) => (name === 'baggage' ? new W3CBaggagePropagator() : new W3CTraceContextPropagator());
  return names.length === 1 ? make(names[0]!) : new CompositePropagator({ propagators: names.map(make) });
}

/** What NodeSDK.start() does for the setup leanSdkCovers, without importing NodeSDK. */
export function startLeanSdk(setup: SdkSetup, env: NodeJS.ProcessEnv = process.env): Sdk {
  if (env.OTEL_LOG_LEVEL) diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(env.OTEL_LOG_LEVEL) });
  registerInstrumentations({ instrumentations: setup.instrumentations });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const propagator = propagatorFromEnv(env);
  if (propagator) propagation.setGlobalPropagator(propagator);
  // The resource NodeSDK builds by default: the SDK's own attributes, then OTEL_RESOURCE_ATTRIBUTES and
  // OTEL_SERVICE_NAME, the process and the host.
  const resource = defaultResource().merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }));
  const meterProvider = new MeterProvider({ resource, views: [], readers: setup.metricReaders });
  metrics.setGlobalMeterProvider(meterProvider);
  for (const instrumentation of setup.instrumentations) instrumentation.setMeterProvider(metrics.getMeterProvider());
  const tracerProvider = new TracerProvider({ sampler: setup.sampler, resource, spanProcessors: setup.spanProcessors });
  trace.setGlobalTracerProvider(tracerProvider);
  return {
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** The lean start where it covers the environment, NodeSDK (loaded now, not before) where it does not. */
export async function startSdk(setup: SdkSetup): Promise<Sdk> {
  if (leanSdkCovers(setup)) return startLeanSdk(setup);
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK(setup);
  sdk.start();
  return sdk;
}
