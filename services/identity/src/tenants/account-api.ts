// HTTP endpoints for the account page, under /api/auth: the signed-in user's own sessions (without
// their tokens, unlike Better Auth's list-sessions; read from Postgres, which has every session even
// when Redis has lost some) and, for tenant administrators, their tenant's
// users, initial access tokens for registering OAuth clients, and the tenant's OAuth clients. The same
// operations as the gRPC admin API, with the session's user as the acting admin.
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthEndpoint, sessionMiddleware } from 'better-auth/api';
import { z } from 'zod';
import type { DirectoryUser } from '../directory/index.ts';
import { liveSessionRows } from '../sessions/index.ts';
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
    lastSignInAt: user.lastSignInAt,
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

type AccountDeps = { admin: () => Admin };

/** Every signed-in user's own account: their sessions, who they are, a client of their hospital by name. */
function ownAccountEndpoints(deps: AccountDeps) {
  return {
    accountSessions: createAuthEndpoint('/account/sessions', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
      const { session } = ctx.context.session;
      const sessions = await liveSessionRows(ctx.context, session.userId);
      return ctx.json(
        sessions.map((s) => ({
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
        const sessions = await liveSessionRows(ctx.context, session.userId);
        const target = sessions.find((s) => s.id === ctx.body.id);
        if (!target) throw new APIError('NOT_FOUND', { code: 'NOT_FOUND', message: 'No such session.' });
        await ctx.context.internalAdapter.deleteSession(target.token);
        return ctx.json({ status: true });
      },
    ),
    // Every user: the hospital they are signed in to, by name (the dashboard's header).
    accountMe: createAuthEndpoint('/account/me', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
      const { user } = ctx.context.session;
      const tenant = await answer(() => deps.admin().ownTenant({ userId: user.id }));
      return ctx.json({
        user: { id: user.id, name: user.name, role: (user as Record<string, unknown>).role },
        tenant: { id: tenant.id, name: tenant.name },
      });
    }),
    // Every user: the name of a client of their own hospital (the device page says who asks).
    accountOAuthClient: createAuthEndpoint(
      '/account/oauth-client',
      { method: 'GET', use: [sessionMiddleware], query: z.object({ clientId: z.string().min(1).max(200) }) },
      async (ctx) => ctx.json(await answer(() => deps.admin().clientName({ userId: ctx.context.session.user.id }, ctx.query.clientId))),
    ),
  };
}

/** A tenant's users, for its administrators (names also for auditors): list, invite, change, (de)activate. */
function tenantUserEndpoints(deps: AccountDeps) {
  return {
    // Auditors and administrators: who is who in the audit log, by name and role (no addresses).
    tenantNames: createAuthEndpoint('/tenant/names', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
      const users = await answer(() => deps.admin().listNames({ userId: ctx.context.session.user.id }));
      return ctx.json({ users });
    }),
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
        const user = await answer(() => deps.admin().reactivateUser({ userId: ctx.context.session.user.id }, { userId: ctx.body.userId }));
        return ctx.json({ user: publicUser(user) });
      },
    ),
  };
}

/** A tenant's OAuth clients, for its administrators: registration tokens, the clients, device requests. */
function tenantOAuthEndpoints(deps: AccountDeps) {
  return {
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
    // Revokes one of the tenant's clients and everything it holds; the gateway refuses its tokens at once.
    tenantRevokeOAuthClient: createAuthEndpoint(
      '/tenant/revoke-oauth-client',
      { method: 'POST', use: [sessionMiddleware], body: z.object({ clientId: z.string().min(1).max(200) }) },
      async (ctx) => {
        const res = await answer(() => deps.admin().revokeOAuthClient({ userId: ctx.context.session.user.id }, ctx.body.clientId));
        return ctx.json(res);
      },
    ),
    // Device codes of the tenant's clients still waiting for someone to approve them (no user codes).
    tenantDeviceRequests: createAuthEndpoint('/tenant/device-requests', { method: 'GET', use: [sessionMiddleware] }, async (ctx) => {
      const requests = await answer(() => deps.admin().listDeviceRequests({ userId: ctx.context.session.user.id }));
      ctx.setHeader('Cache-Control', 'no-store');
      return ctx.json({ requests });
    }),
  };
}

export function accountPlugin(deps: AccountDeps) {
  return {
    id: 'simrs-account',
    endpoints: { ...ownAccountEndpoints(deps), ...tenantUserEndpoints(deps), ...tenantOAuthEndpoints(deps) },
  } satisfies BetterAuthPlugin;
}
