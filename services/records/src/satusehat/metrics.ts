// The outbox as metrics: visits queued, sent, failed and incomplete per hospital (counts only, through
// records.satusehat_counts), and how long the oldest queued visit has waited, which the chart's backlog
// alert reads (always there, 0 when nothing waits). Counted on a timer, not when Prometheus scrapes: a
// scrape reports the latest count and never waits for a connection the requests need.
import type { Pool } from '@simrs/platform/db';
import { meter } from '@simrs/platform/metrics';
import { log } from '../server/index.ts';
import { OUTBOX_STATES } from './schema.ts';

/** How often the outbox is counted: well inside the backlog alert's window. */
const COUNT_EVERY_MS = 15_000;

interface Count {
  tenant_id: string;
  state: string;
  n: string;
}

/** Starts counting the outbox for the metrics; returns what stops it. */
export function observeOutbox(pool: Pool): () => void {
  let oldestAge = 0;
  let counts: Count[] = [];
  const count = async () => {
    try {
      const oldest = await pool.query<{ age: number }>('select records.satusehat_oldest_queued() as age');
      counts = (await pool.query<Count>('select tenant_id, state, n from records.satusehat_counts()')).rows;
      oldestAge = Number(oldest.rows[0]?.age ?? 0);
    } catch (err) {
      // The database away: the last count stands until the next one succeeds.
      log.debug({ err }, 'the SATUSEHAT outbox could not be counted');
    }
  };
  void count();
  const timer = setInterval(() => void count(), COUNT_EVERY_MS);
  timer.unref();

  const m = meter('records');
  m.createObservableGauge('records.satusehat.oldest_queued_age', {
    description: 'Seconds since the oldest visit still queued for SATUSEHAT was finished (0: nothing waits).',
    unit: 's',
  }).addCallback((result) => result.observe(oldestAge));
  m.createObservableGauge('records.satusehat.outbox', {
    description: 'SATUSEHAT sends by hospital (tenant) and state (queued, sent, failed, incomplete): the latest row of each send.',
  }).addCallback((result) => {
    for (const tenant of new Set(counts.map((r) => r.tenant_id)))
      for (const state of OUTBOX_STATES) {
        const row = counts.find((r) => r.tenant_id === tenant && r.state === state);
        result.observe(Number(row?.n ?? 0), { tenant, state });
      }
  });
  return () => clearInterval(timer);
}
