// The outbox as metrics: visits queued, sent, failed and incomplete per hospital, read when Prometheus
// scrapes (counts only, through records.satusehat_counts). The chart's alert fires on a growing backlog.
import type { Pool } from '@simrs/platform/db';
import { meter } from '@simrs/platform/metrics';
import { OUTBOX_STATES } from './schema.ts';

export function observeOutbox(pool: Pool): void {
  const gauge = meter('records').createObservableGauge('records.satusehat.outbox', {
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
