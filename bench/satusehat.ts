// SATUSEHAT sending: finished visits sent per second to the stand-in platform
// (@simrs/platform/testing/satusehat-peer, in this process) by one records worker process, and that
// process's CPU time per visit. The visits are made through the API first and held back; the worker
// starts idle, then every visit becomes due at once and the clock runs until the last is sent. Beside
// them: the stand-in's own CPU per visit (this process's, which is mostly the stand-in's), so that a
// slow platform shows as such, and the sends per visit (more than one when an answer came too late).
// BENCH_SATUSEHAT_VISITS sets the size (1,000 by default).
import { performance } from 'node:perf_hooks';
import { waitFor } from '@simrs/platform/testing';
import { startSatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import { hospital, satusehatEnv, startRecords, startWorker } from '@simrs/records/testing';
import { measureUsage } from './procstat.ts';
import { verdict } from './verdict.ts';

const TARGET_PER_SECOND = 20;
const TARGET_CPU_MS = 25;

export async function benchSatusehat(): Promise<Array<Record<string, string | number>>> {
  const visits = Number(process.env.BENCH_SATUSEHAT_VISITS ?? 1_000);
  const peer = await startSatusehatPeer();
  const r = await startRecords('satusehat_bench', satusehatEnv(peer, { SATUSEHAT_WORKER: 'false' }));
  try {
    const h = await hospital(r, peer, 'rs-bench');
    // Made eight at a time through the API; each is held back until the worker is ready.
    for (let made = 0; made < visits; made += 8)
      await Promise.all(Array.from({ length: Math.min(8, visits - made) }, () => h.finishedVisit()));
    await r.owner.query("update records.satusehat_outbox set next_at = now() + interval '1 day'");
    const worker = await startWorker(r, peer, { LOG_LEVEL: 'warn', SATUSEHAT_POLL_MS: '200' });
    try {
      const started = performance.now();
      const { usage } = await measureUsage({ worker: worker.child.pid!, standIn: process.pid }, async () => {
        await r.owner.query('update records.satusehat_outbox set next_at = now()');
        await waitFor(
          'every visit sent',
          async () =>
            (await r.owner.query("select count(*)::int as n from records.satusehat_outbox where state = 'sent'")).rows[0].n === visits,
          600_000,
          200,
        );
      });
      const seconds = (performance.now() - started) / 1000;
      const perSecond = Math.round((visits / seconds) * 10) / 10;
      const perVisit = (n: number) => Math.round((n * 10) / visits) / 10;
      const cpuMs = perVisit((usage.cpu.worker ?? 0) * 1000);
      const { attempts } = (await r.owner.query('select sum(attempts)::int as attempts from records.satusehat_outbox')).rows[0];
      return [
        {
          figure: `visits sent per second (${visits} finished visits, one worker)`,
          target: `>= ${TARGET_PER_SECOND}`,
          value: perSecond,
          verdict: verdict(perSecond >= TARGET_PER_SECOND),
        },
        { figure: "worker's CPU per visit (ms)", target: `<= ${TARGET_CPU_MS}`, value: cpuMs, verdict: verdict(cpuMs <= TARGET_CPU_MS) },
        { figure: 'requests to the platform per visit', target: '-', value: perVisit(peer.log.length), verdict: '-' },
        { figure: 'sends per visit (the worker’s attempts)', target: '-', value: perVisit(attempts), verdict: '-' },
        {
          figure: "the stand-in's CPU per visit (ms, the bench's process)",
          target: '-',
          value: perVisit((usage.cpu.standIn ?? 0) * 1000),
          verdict: '-',
        },
      ];
    } finally {
      await worker.stop();
    }
  } finally {
    await r.stop();
    await peer.stop();
  }
}
