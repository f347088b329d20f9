// Application metrics through the OpenTelemetry API; the Prometheus exporter started in telemetry.ts
// serves them on /metrics. Label values are bounded sets (routes, procedures, outcomes, methods),
// never ids, addresses or tokens.
import { metrics } from '@opentelemetry/api';
import type { Meter } from '@opentelemetry/api';

export function meter(service: string): Meter {
  return metrics.getMeter(`simrs.${service}`);
}
