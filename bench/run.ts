// `npm run bench`: every benchmark, printed as tables. Speed and memory targets live here, never in
// timed tests. BENCH_ONLY=records|gateway|refresh|klinis|export|dashboard|visit|mcp|trips|satusehat runs one part.
import { printTable } from './load.ts';
import { conditions } from './wrk.ts';

type Bench = () => Promise<Array<Record<string, string | number>>>;

const parts: Record<string, { title: string; load: () => Promise<Bench> }> = {
  records: {
    title: 'records: pasien.list and FHIR Patient search latency by table size (straight to records, signed principal)',
    load: async () => (await import('./records.ts')).benchRecords,
  },
  gateway: {
    title: "hot paths against the database's ceiling: pasien.list via pgbench, straight to records, through the gateway; token refreshes",
    load: async () => (await import('./gateway.ts')).benchGateway,
  },
  refresh: {
    title: 'token refreshes alone (refresh grant through the gateway), with CPU time per refresh',
    load: async () => (await import('./refresh.ts')).benchRefresh,
  },
  klinis: {
    title:
      "clinical records: a patient's timeline, a clinic's worklist and vital-sign writes against the database's ceiling (straight to records)",
    load: async () => (await import('./klinis.ts')).benchKlinis,
  },
  export: {
    title: "Bulk Data export: a whole hospital's $export against COPY of the same rows (the database's ceiling), records' peak RSS",
    load: async () => (await import('./export.ts')).benchExport,
  },
  dashboard: {
    title: 'dashboard: first load (gzipped) and patient search through the gateway with a session cookie',
    load: async () => (await import('./dashboard.ts')).benchDashboard,
  },
  visit: {
    title: "the visit page's load through the gateway (a doctor's session cookie) on the clinical data set",
    load: async () => (await import('./visit-page.ts')).benchVisitPage,
  },
  mcp: {
    title: "AI agents: the MCP server's patient summary through the gateway, beside the same reads through tRPC, with CPU per call",
    load: async () => (await import('./mcp.ts')).benchMcp,
  },
  satusehat: {
    title: 'SATUSEHAT sending: finished visits sent per second to the stand-in platform, and the worker’s CPU per visit',
    load: async () => (await import('./satusehat.ts')).benchSatusehat,
  },
  trips: {
    title: 'round trips of one token refresh (counted from the services’ traces)',
    load: async () => (await import('./refresh-trips.ts')).benchRefreshTrips,
  },
};

const only = process.env.BENCH_ONLY;
for (const [name, part] of Object.entries(parts)) {
  if (only && only !== name) continue;
  const started = Date.now();
  const rows = await (await part.load())();
  printTable(`${part.title} (${Math.round((Date.now() - started) / 1000)} s; ${conditions()})`, rows);
}
