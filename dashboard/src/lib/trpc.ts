// The typed tRPC client for records (through the gateway at /trpc, same origin, session cookie),
// with TanStack Query. AppRouter is imported as a type only: no server code reaches the bundle.
import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter } from '@simrs/records/router';

export type { AppRouter };
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export const trpcClient = createTRPCClient<AppRouter>({
  // One procedure per request (no batching): the gateway names each one in its metrics and traces.
  links: [httpLink({ url: '/trpc', fetch: (url, init) => fetch(url, { ...init, credentials: 'same-origin' }) })],
});

/** A client error's HTTP status (401, 403, 409, ...), if any. */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof TRPCClientError) return (err.data as { httpStatus?: number } | undefined)?.httpStatus;
  return (err as { status?: number } | undefined)?.status;
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        // A refusal will not change by asking again.
        retry: (count, err) => {
          const status = httpStatusOf(err);
          return (status === undefined || status >= 500) && count < 2;
        },
      },
    },
  });
}

/**
 * Options for useInfiniteQuery over records' keyset pages: the cursor goes back as `cursor` with the
 * same filters. (tRPC's own infiniteQueryOptions also sends a `direction` field, which records'
 * strict inputs refuse.)
 */
export function cursorPages<T extends { nextCursor: string | null }>(
  queryKey: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<T>,
) {
  return {
    queryKey,
    queryFn: ({ pageParam }: { pageParam: string | undefined }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: T) => last.nextCursor ?? undefined,
  };
}
