// `npm run bench`: every benchmark, printed as tables. Speed and memory targets live here, never in
// timed tests. BENCH_ONLY=records|gateway runs one part.
import { printTable } from './load.ts';

type Bench = () => Promise<Array<Record<string, string | number>>>;

const parts: Record<string, { title: string; load: () => Promise<Bench> }> = {
  records: {
    title: 'records: pasien.list and FHIR Patient search latency by table size (straight to records, signed principal)',
    load: async () => (await import('./records.ts')).benchRecords,
  },
  gateway: {
    title: 'gateway: pasien.list through the gateway (bearer, cookie) and straight to records; token refreshes',
    load: async () => (await import('./gateway.ts')).benchGateway,
  },
};

const only = process.env.BENCH_ONLY;
for (const [name, part] of Object.entries(parts)) {
  if (only && only !== name) continue;
  const started = Date.now();
  const rows = await (await part.load())();
  printTable(`${part.title} (${Math.round((Date.now() - started) / 1000)} s)`, rows);
}
