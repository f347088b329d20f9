// The outbox as metrics, read when Prometheus scrapes: visits queued, sent, failed and incomplete per
// hospital (counts only, through records.satusehat_counts), and how long the oldest queued visit has
// waited, which the chart's backlog alert reads (always there, 0 when nothing waits).
import type { Pool } from '@simrs/platform/db';
import { meter } from '@simrs/platform/metrics';
import { OUTBOX_STATES } from './schema.ts';

export function observeOutbox(pool: Pool): void {
  const m = meter('records');
  const oldest = m.createObservableGauge('records.satusehat.oldest_queued_age', {
    description: 'Seconds since the oldest visit still queued for SATUSEHAT was finished (0: nothing waits).',
    unit: 's',
  });
  oldest.addCallback(async (result) => {
    const { rows } = await pool.query<{ age: number }>('select records.satusehat_oldest_queued() as age');
    result.observe(Number(rows[0]?.age ?? 0));
  });
  const gauge = m.createObservableGauge('records.satusehat.outbox', {
    description: 'SATUSEHAT sends by hospital (tenant) and state (queued, sent, failed, incomplete): the latest row of each send.',
  });
  gauge.addCallback(async (result) => {
    const { rows } = await pool.query<{ tenant_id: string; state: string; n: string }>(
      'select tenant_id, state, n from records.satusehat_counts()',
    );
    const seen = new Set(rows.map((r) => r.tenant_id));
    for (const tenant of seen)
      for (const state of OUTBOX_STATES) {
        const row = rows.find((r) => r.tenant_id === tenant && r.state === state);
        result.observe(Number(row?.n ?? 0), { tenant, state });
      }
  });
}
