// What the clinic pages share: the signed-in clinician's clinics, the refusal that asks for
// break-the-glass, waiting times, and the calls to procedures other engineers are still landing
// (kode.search, the paged klinis.riwayat), made by path so the pages keep working without them.
import { useQuery } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { useUser } from './session.tsx';
import { httpStatusOf, useTRPC, useTRPCClient } from './trpc.ts';

/** How often the worklist and the front desk ask for the day's visits again (dashboard/README.md). */
export const WORKLIST_REFRESH_MS = 10_000;

/** The clinics the signed-in clinician is assigned to (poli.staff), active ones, by name. */
export function useMyClinics() {
  const trpc = useTRPC();
  const user = useUser();
  const staff = useQuery(trpc.poli.staff.queryOptions({ userId: user.id }));
  const clinics = useQuery(trpc.poli.list.queryOptions());
  const mine = new Set(staff.data?.map((s) => s.poliId));
  return {
    isPending: staff.isPending || clinics.isPending,
    error: staff.error ?? clinics.error,
    clinics: (clinics.data ?? []).filter((c) => mine.has(c.id)),
  };
}

/** records' 403 for a clinician without a treatment relationship (access/need-to-know.ts). */
export function isNoRelationship(err: unknown): boolean {
  return httpStatusOf(err) === 403 && err instanceof Error && /no treatment relationship/.test(err.message);
}

/** A procedure the records API does not (yet) have: tRPC answers 404 "No procedure found". */
function isMissingProcedure(err: unknown): boolean {
  return err instanceof TRPCClientError && httpStatusOf(err) === 404 && /no procedure/i.test(err.message);
}

/** Minutes a visit has waited: since check-in (or registration) until it started, or until now. */
export function waitingMinutes(
  v: { createdAt: string; startedAt: string | null; statusHistory: { status: string; at: string }[] },
  now = Date.now(),
): number {
  const arrived = v.statusHistory.find((s) => s.status === 'arrived')?.at ?? v.createdAt;
  const until = v.startedAt ? Date.parse(v.startedAt) : now;
  return Math.max(0, Math.round((until - Date.parse(arrived)) / 60_000));
}

export interface CodeHit {
  code: string;
  displayEn: string;
  displayId: string;
}

// Called by path: the typed router on main may not have these procedures yet.
type Untyped = Record<string, Record<string, { query(input: unknown): Promise<unknown> }>>;

/** ICD-10 lookup (kode.search); `available: false` when the API has no such procedure yet. */
export function useCodeSearch(q: string, enabled: boolean) {
  const client = useTRPCClient() as unknown as Untyped;
  return useQuery({
    queryKey: ['kode.search', q],
    enabled: enabled && q.trim().length >= 2,
    staleTime: 10 * 60_000,
    queryFn: async (): Promise<{ available: boolean; hits: CodeHit[] }> => {
      try {
        const hits = (await client.kode!.search!.query({ q: q.trim(), limit: 10 })) as CodeHit[];
        return { available: true, hits };
      } catch (err) {
        if (isMissingProcedure(err)) return { available: false, hits: [] };
        throw err;
      }
    },
  });
}

export interface VisitSummary {
  id: string;
  tanggal: string;
  poliNama: string;
  status: string;
  diagnosis?: { kode: string | null; isi: Record<string, unknown>; peran: string | null }[];
}

/**
 * One page of the patient's clinical timeline (klinis.riwayat with `limit` and `cursor`). Where the
 * API still answers the older shape (every visit, no paging: it refuses the paging fields), the
 * visits come in one page.
 */
export async function riwayatPage(
  client: unknown,
  pasienId: string,
  cursor: string | undefined,
): Promise<{ items: VisitSummary[]; nextCursor: string | null }> {
  const riwayat = (client as Untyped).klinis!.riwayat!;
  try {
    return (await riwayat.query({ pasienId, limit: 10, ...(cursor ? { cursor } : {}) })) as {
      items: VisitSummary[];
      nextCursor: string | null;
    };
  } catch (err) {
    const said = err instanceof TRPCClientError ? `${err.message} ${JSON.stringify(err.data ?? {})}` : '';
    if (httpStatusOf(err) !== 400 || !/unknown field/.test(said)) throw err;
    return { items: (await riwayat.query({ pasienId })) as VisitSummary[], nextCursor: null };
  }
}
