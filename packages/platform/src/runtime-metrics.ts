// What a service's process is doing, on /metrics beside its own metrics: event-loop delay and
// utilisation, V8's heap by space, garbage-collection pauses (OpenTelemetry's Node runtime
// instrumentation) and the resident set size, which that instrumentation does not report, as the
// semantic conventions' `process.memory.usage`.
import { metrics } from '@opentelemetry/api';
import { RuntimeNodeInstrumentation } from '@opentelemetry/instrumentation-runtime-node';

/** Its name in OTEL_NODE_ENABLED_INSTRUMENTATIONS (the one auto-instrumentations-node gives it). */
export const RUNTIME_INSTRUMENTATION = 'runtime-node';

/**
 * The event-loop delay is sampled by a native timer every `monitoringPrecision` ms: every pause of that
 * long or more shows, and an idle process wakes for it that often. 20 ms rather than the default 10:
 * half the wake-ups, and still over a thousand samples in a scrape interval for an alert at 100 ms.
 * What it costs: docs/benchmarks.md (the runtime metrics).
 */
export function runtimeInstrumentation(): RuntimeNodeInstrumentation {
  return new RuntimeNodeInstrumentation({ monitoringPrecision: 20 });
}

/** The resident set size, read when /metrics is scraped. Call once the meter provider is set. */
export function observeResidentMemory(): void {
  metrics
    .getMeter('simrs.runtime')
    .createObservableUpDownCounter('process.memory.usage', { description: 'Resident set size of the process.', unit: 'By' })
    .addCallback((result) => result.observe(process.memoryUsage.rss()));
}

/**
 * The Prometheus series the runtime metrics appear as (names without labels; the delay gauges appear
 * once the loop has been sampled five times, 100 ms, since the last scrape). The dashboard and the
 * alert rules read these; the tests check every service exposes them.
 */
export const RUNTIME_SERIES: readonly string[] = [
  'nodejs_eventloop_delay_min',
  'nodejs_eventloop_delay_max',
  'nodejs_eventloop_delay_mean',
  'nodejs_eventloop_delay_stddev',
  'nodejs_eventloop_delay_p50',
  'nodejs_eventloop_delay_p90',
  'nodejs_eventloop_delay_p99',
  'nodejs_eventloop_utilization',
  'nodejs_eventloop_time_total',
  'v8js_gc_duration_bucket',
  'v8js_gc_duration_sum',
  'v8js_gc_duration_count',
  'v8js_memory_heap_used',
  'v8js_memory_heap_space_available_size',
  'v8js_memory_heap_space_physical_size',
  'v8js_memory_heap_space_size',
  'v8js_resource_active',
  'process_memory_usage',
];
