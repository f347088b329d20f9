// The tRPC calls the dashboard's visit page (dashboard/src/pages/VisitPage.tsx) makes when a doctor
// opens a visit in progress, in the order the page can make them: the visit first, then the
// need-to-know probe (ClinicalGate's allergy list, which the banner reuses), then every part at once.
// test/clinic-day.test.ts checks that the page asks exactly these; bench/visit-page.ts replays them.

export interface Call {
  path: string;
  input: Record<string, unknown>;
}

export function visitPageCalls(visit: { id: string; pasienId: string }): Call[][] {
  return [
    [{ path: 'kunjungan.get', input: { id: visit.id } }],
    [{ path: 'alergi.list', input: { pasienId: visit.pasienId } }],
    [
      { path: 'pasien.get', input: { id: visit.pasienId } },
      { path: 'vital.list', input: { kunjunganId: visit.id } },
      { path: 'vital.list', input: { pasienId: visit.pasienId, limit: 200 } },
      { path: 'diagnosis.list', input: { kunjunganId: visit.id } },
      { path: 'catatan.list', input: { kunjunganId: visit.id } },
    ],
  ];
}

/** A call as one comparable line (input keys sorted). */
export const callLine = (c: Call) =>
  `${c.path} ${JSON.stringify(Object.fromEntries(Object.entries(c.input).sort(([a], [b]) => a.localeCompare(b))))}`;

/** The call a tRPC GET address stands for (httpLink, no batching: `/trpc/<path>?input=<json>`). */
export function callOf(url: string): Call | undefined {
  const u = new URL(url);
  const m = /^\/trpc\/([\w.]+)$/.exec(u.pathname);
  if (!m) return undefined;
  const raw = u.searchParams.get('input');
  return { path: m[1]!, input: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
}
