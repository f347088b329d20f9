// A user's sessions as Postgres has them, the source of truth. With a secondary storage Better Auth
// lists a user's sessions from Redis alone (its `active-sessions-<user>` key), and revoke-other-sessions
// ends only those; but with storeSessionInDatabase every session has a row, and a session Redis has
// forgotten (data lost, a failover to an empty replica) still authenticates, because looking a token
// up falls back to its row. What a user is shown and what "end my sessions" ends are read here, from
// the rows, so that Redis losing its data never leaves a session its owner can neither see nor end.
import type { DBAdapter } from '@better-auth/core/db/adapter';
import type { BetterAuthPlugin, Session } from 'better-auth';
import { createAuthMiddleware } from 'better-auth/api';

/** The part of Better Auth's context the rows are read through: its database adapter's findMany. */
export interface SessionStore {
  adapter: Pick<DBAdapter, 'findMany'>;
}

/** Every unexpired session of `userId`, from Postgres, soonest to expire first (the order Redis's list had). */
export function liveSessionRows(ctx: SessionStore, userId: string): Promise<Session[]> {
  return ctx.adapter.findMany<Session>({
    model: 'session',
    where: [
      { field: 'userId', value: userId },
      { field: 'expiresAt', value: new Date(), operator: 'gt' },
    ],
    sortBy: { field: 'expiresAt', direction: 'asc' },
  });
}

/**
 * revoke-other-sessions: Better Auth ends the other sessions Redis lists; this then ends those only
 * Postgres still has. Each through Better Auth's deleteSession, so its cache entry goes too and the
 * `session.delete.after` hook tells the gateway (auth/auth.ts).
 */
export const sessionRowsPlugin = {
  id: 'simrs-session-rows',
  hooks: {
    after: [
      {
        matcher: (ctx) => ctx.path === '/revoke-other-sessions',
        handler: createAuthMiddleware(async (ctx) => {
          const current = ctx.context.session?.session;
          if (!current || ctx.context.returned instanceof Error) return;
          for (const row of await liveSessionRows(ctx.context, current.userId))
            if (row.id !== current.id) await ctx.context.internalAdapter.deleteSession(row.token);
        }),
      },
    ],
  },
} satisfies BetterAuthPlugin;
