// HTTP endpoints for the account page, under /api/auth: the signed-in user's own sessions (without
// their tokens, unlike Better Auth's list-sessions) and, for tenant administrators, their tenant's
// users, initial access tokens for registering OAuth clients, and the tenant's OAuth clients. The same
// operations as the gRPC admin API, with the session's user as the acting admin.
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthEndpoint, sessionMiddleware } from 'better-auth/api';
import { z } from 'zod';
import type { DirectoryUser } from '../directory/index.ts';
import { HTTP_STATUS, IdentityError } from '../directory/index.ts';
import type { Admin } from './admin.ts';

export function publicUser(user: DirectoryUser) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    active: user.active,
    emailVerified: user.emailVerified,
    createdAt: user.createdAt,
  };
}

async function answer<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof IdentityError) throw new APIError(HTTP_STATUS[err.kind], { code: err.kind.toUpperCase(), message: err.message });
    throw err;
  }
}

const userTarget = z.object({ userId: z.string().min(1) });

export function accountPlugin(deps: { admin: () => Admin }) {
  return {
    id: 'simrs-account',
    endpoints: {
      accountSessions: createAuthEndpoint('/account/sessions', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
        const { session } = ctx.context.session;
        const sessions = await ctx.context.internalAdapter.listSessions(session.userId, { onlyActiveSessions: true });
        return ctx.json(
          sessions
            .filter((s) => new Date(s.expiresAt).getTime() > Date.now())
            .map((s) => ({
              id: s.id,
              createdAt: s.createdAt,
              updatedAt: s.updatedAt,
              expiresAt: s.expiresAt,
              ipAddress: s.ipAddress ?? null,
              userAgent: s.userAgent ?? null,
              current: s.id === session.id,
            })),
        );
      }),
      accountRevokeSession: createAuthEndpoint(
        '/account/revoke-session',
        { method: 'POST', use: [sessionMiddleware], body: z.object({ id: z.string().min(1) }) },
        async (ctx) => {
          const { session } = ctx.context.session;
          if (ctx.body.id === session.id)
            throw new APIError('BAD_REQUEST', { code: 'CURRENT_SESSION', message: 'Use sign-out to end the current session.' });
          const sessions = await ctx.context.internalAdapter.listSessions(session.userId);
          const target = sessions.find((s) => s.id === ctx.body.id);
          if (!target) throw new APIError('NOT_FOUND', { code: 'NOT_FOUND', message: 'No such session.' });
          await ctx.context.internalAdapter.deleteSession(target.token);
          return ctx.json({ status: true });
        },
      ),
      tenantUsers: createAuthEndpoint('/tenant/users', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
        const { tenant, users } = await answer(() => deps.admin().listUsers({ userId: ctx.context.session.user.id }));
        return ctx.json({ tenant: { id: tenant.id, name: tenant.name }, users: users.map(publicUser) });
      }),
      tenantInviteUser: createAuthEndpoint(
        '/tenant/invite-user',
        {
          method: 'POST',
          use: [sessionMiddleware],
          body: z.object({ email: z.string().min(3), role: z.string().min(1), name: z.string().max(200).optional() }),
        },
        async (ctx) => {
          const user = await answer(() => deps.admin().inviteUser({ userId: ctx.context.session.user.id }, ctx.body));
          return ctx.json({ user: publicUser(user) });
        },
      ),
      tenantChangeRole: createAuthEndpoint(
        '/tenant/change-role',
        { method: 'POST', use: [sessionMiddleware], body: userTarget.extend({ role: z.string().min(1) }) },
        async (ctx) => {
          const user = await answer(() =>
            deps.admin().changeRole({ userId: ctx.context.session.user.id }, { userId: ctx.body.userId }, ctx.body.role),
          );
          return ctx.json({ user: publicUser(user) });
        },
      ),
      tenantDeactivateUser: createAuthEndpoint(
        '/tenant/deactivate-user',
        { method: 'POST', use: [sessionMiddleware], body: userTarget },
        async (ctx) => {
          const res = await answer(() => deps.admin().deactivateUser({ userId: ctx.context.session.user.id }, { userId: ctx.body.userId }));
          return ctx.json({ user: publicUser(res.user), sessionsEnded: res.sessionsEnded });
        },
      ),
      tenantReactivateUser: createAuthEndpoint(
        '/tenant/reactivate-user',
        { method: 'POST', use: [sessionMiddleware], body: userTarget },
        async (ctx) => {
          const user = await answer(() =>
            deps.admin().reactivateUser({ userId: ctx.context.session.user.id }, { userId: ctx.body.userId }),
          );
          return ctx.json({ user: publicUser(user) });
        },
      ),
      // A tenant administrator's session issues initial access tokens (the CLI does the same over gRPC).
      tenantRegistrationToken: createAuthEndpoint(
        '/tenant/registration-tokens',
        {
          method: 'POST',
          use: [sessionMiddleware],
          body: z.object({ allowWrite: z.boolean().optional(), ttlSeconds: z.number().int().positive().optional() }),
        },
        async (ctx) => {
          const issued = await answer(() =>
            deps
              .admin()
              .issueRegistrationToken(
                { userId: ctx.context.session.user.id },
                { allowWrite: ctx.body.allowWrite === true, ttlSeconds: ctx.body.ttlSeconds },
              ),
          );
          ctx.setHeader('Cache-Control', 'no-store');
          return ctx.json({
            token: issued.token,
            tenantId: issued.tenantId,
            scopes: issued.scopes,
            expiresAt: new Date(issued.expiresAt).toISOString(),
          });
        },
      ),
      tenantOAuthClients: createAuthEndpoint('/tenant/oauth-clients', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
        const clients = await answer(() => deps.admin().listOAuthClients({ userId: ctx.context.session.user.id }));
        return ctx.json({ clients });
      }),
    },
  } satisfies BetterAuthPlugin;
}
