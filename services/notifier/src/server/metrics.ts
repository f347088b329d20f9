// The notifier's metrics, through the OpenTelemetry API; the platform's Prometheus exporter serves
// them on GET /metrics of the HTTP port (see packages/platform telemetry.ts and health.ts). Counters
// and the histogram are per process (sum them over replicas); the store gauges are read from
// Postgres at scrape time and describe the whole queue, so every replica reports the same values
// (take max, not sum). No label carries an address, a key or an id.
import { metrics } from '@opentelemetry/api';
import type { DeadReason, Outcome, StoreStats } from '../deliveries/index.ts';

export function createMetrics(readStats: () => Promise<StoreStats>) {
  const meter = metrics.getMeter('simrs.notifier');
  const accepted = meter.createCounter('notifier.messages.accepted', { description: 'Messages stored by SendEmail, by template.' });
  const duplicates = meter.createCounter('notifier.messages.duplicate', {
    description: 'SendEmail calls whose idempotency key was already known (nothing new stored or sent).',
  });
  const rejected = meter.createCounter('notifier.messages.rejected', { description: 'SendEmail calls refused with INVALID_ARGUMENT.' });
  const attempts = meter.createCounter('notifier.send.attempts', { description: 'SMTP delivery attempts by outcome (sent, retry, dead).' });
  const deadLetters = meter.createCounter('notifier.dead_letters', {
    description: 'Messages dead-lettered by this process, by reason (permanent, max_attempts, expired, lost_lease).',
  });
  const resumed = meter.createCounter('notifier.send.resumed', {
    description:
      'Sends taken over from a worker lost mid-send. Each is sent again with the same Message-ID; if the lost worker died after the relay answered 250, the recipient gets it twice (RFC 1047).',
  });
  const duration = meter.createHistogram('notifier.send.duration', {
    description: 'Duration of one SMTP attempt in seconds.',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
  });

  const storeUp = meter.createObservableGauge('notifier.store.up', {
    description: 'Whether the message store answered this scrape (1) or not (0).',
  });
  const deliveries = meter.createObservableGauge('notifier.deliveries', {
    description: 'Messages in the store by state (queued, sending, dead); dead letters stay for MAIL_RETENTION_DAYS.',
  });
  const oldestOpen = meter.createObservableGauge('notifier.oldest_open_message.age', {
    description: 'Age in seconds of the oldest message not yet sent or dead.',
    unit: 's',
  });
  meter.addBatchObservableCallback(
    async (result) => {
      const stats = await readStats().catch(() => undefined);
      result.observe(storeUp, stats ? 1 : 0);
      if (!stats) return;
      for (const [state, n] of Object.entries(stats.byState)) result.observe(deliveries, n, { state });
      result.observe(oldestOpen, stats.oldestOpenSeconds);
    },
    [storeUp, deliveries, oldestOpen],
  );

  return {
    accepted: (template: string) => accepted.add(1, { template }),
    duplicate: () => duplicates.add(1),
    rejected: () => rejected.add(1),
    attempt: (outcome: Outcome) => attempts.add(1, { outcome }),
    deadLettered: (reason: DeadReason) => deadLetters.add(1, { reason }),
    sendDuration: (seconds: number) => duration.record(seconds),
    resumed: () => resumed.add(1),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
