// IdentityService over gRPC: ValidateSession for the gateway, and the admin API for operators (the
// CLI). Domain errors map to gRPC statuses here and only here.
import { AUTH_BASE_PATH } from '@simrs/contracts/oauth';
import { addService, grpc, GrpcError } from '@simrs/proto/grpc';
import type { Handlers } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import type { UserRef } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import type { Logger } from '@simrs/platform/logger';
import type { DirectoryUser, ErrorKind, Tenant } from '../directory/index.ts';
import { IdentityError } from '../directory/index.ts';
import { safeEqual } from '../keys/index.ts';
import type { OAuthClientInfo } from '../oauth/index.ts';
import type { Sessions } from '../sessions/index.ts';
import type { Admin } from '../tenants/index.ts';

const STATUS: Record<ErrorKind, grpc.status> = {
  invalid: grpc.status.INVALID_ARGUMENT,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  denied: grpc.status.PERMISSION_DENIED,
  not_found: grpc.status.NOT_FOUND,
  conflict: grpc.status.ALREADY_EXISTS,
  precondition: grpc.status.FAILED_PRECONDITION,
  unavailable: grpc.status.UNAVAILABLE,
};

const timestamp = (date: Date) => {
  const ms = date.getTime();
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
};

const tenantMessage = (t: Tenant) => ({ tenantId: t.id, name: t.name, createdAt: timestamp(new Date(t.createdAt)) });
const userMessage = (u: DirectoryUser) => ({
  userId: u.id,
  tenantId: u.tenantId,
  email: u.email,
  name: u.name,
  role: u.role,
  active: u.active,
  emailVerified: u.emailVerified,
  createdAt: timestamp(new Date(u.createdAt)),
  lastSignInAt: u.lastSignInAt ? timestamp(new Date(u.lastSignInAt)) : undefined,
});
const clientMessage = (c: OAuthClientInfo) => ({
  clientId: c.clientId,
  name: c.name ?? '',
  scopes: c.scopes,
  redirectUris: c.redirectUris,
  grantTypes: c.grantTypes,
  public: c.public,
  disabled: c.disabled,
  createdAt: c.createdAt ? timestamp(new Date(c.createdAt)) : undefined,
});
const ref = (r: UserRef | undefined) => (r ? { userId: r.userId || undefined, email: r.email || undefined } : undefined);

/** grpc-js reports the peer as `address:port` ("127.0.0.1:5000", "::1:5000"). */
export function isLoopback(peer: string): boolean {
  if (peer.startsWith('unix:')) return true;
  const address = peer
    .replace(/^ipv[46]:/, '')
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '');
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

/**
 * Admin calls carry `authorization: Bearer <ADMIN_API_TOKEN>`; without a configured token, only
 * calls from the loopback interface (the CLI next to the service) are accepted.
 */
export function adminAuthorizer(adminToken: string | undefined) {
  return (call: grpc.ServerUnaryCall<unknown, unknown>): void => {
    if (adminToken) {
      const header = call.metadata.get('authorization')[0];
      const presented = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!presented || !safeEqual(presented, adminToken)) throw new GrpcError(grpc.status.UNAUTHENTICATED, 'admin token required');
      return;
    }
    if (!isLoopback(call.getPeer()))
      throw new GrpcError(grpc.status.PERMISSION_DENIED, 'admin calls need ADMIN_API_TOKEN, or a call from loopback');
  };
}

type IdentityHandlers = Handlers<(typeof IdentityService)['method']>;
type Authorize = ReturnType<typeof adminAuthorizer>;

/** ValidateSession, the gateway's call: a session token to the principal it stands for. */
function sessionHandlers(sessions: Sessions): Pick<IdentityHandlers, 'validateSession'> {
  return {
    async validateSession(req) {
      const p = await sessions.validate(req.sessionToken);
      return {
        principal: {
          userId: p.userId,
          tenantId: p.tenantId,
          role: p.role,
          sessionId: p.sessionId,
          scopes: p.scopes,
          expiresAt: timestamp(p.expiresAt),
        },
      };
    },
  };
}

/** The operators' tenant and user administration. */
function directoryHandlers(
  admin: Admin,
  log: Logger,
  authorize: Authorize,
): Pick<
  IdentityHandlers,
  'createTenant' | 'listTenants' | 'inviteUser' | 'changeRole' | 'deactivateUser' | 'reactivateUser' | 'listUsers'
> {
  return {
    async createTenant(req, call) {
      authorize(call);
      const res = await admin.createTenant({
        tenantId: req.tenantId,
        name: req.name,
        adminEmail: req.adminEmail,
        adminName: req.adminName || undefined,
      });
      log.info({ tenantId: res.tenant.id, adminId: res.admin.id }, 'tenant created');
      return { tenant: tenantMessage(res.tenant), admin: userMessage(res.admin) };
    },
    async listTenants(_req, call) {
      authorize(call);
      return { tenants: (await admin.listTenants()).map(tenantMessage) };
    },
    async inviteUser(req, call) {
      authorize(call);
      const user = await admin.inviteUser(ref(req.actor), { email: req.email, role: req.role, name: req.name || undefined });
      log.info({ tenantId: user.tenantId, userId: user.id, role: user.role }, 'user invited');
      return { user: userMessage(user) };
    },
    async changeRole(req, call) {
      authorize(call);
      const user = await admin.changeRole(ref(req.actor), ref(req.user), req.role);
      log.info({ tenantId: user.tenantId, userId: user.id, role: user.role }, 'role changed');
      return { user: userMessage(user) };
    },
    async deactivateUser(req, call) {
      authorize(call);
      const res = await admin.deactivateUser(ref(req.actor), ref(req.user));
      log.info({ tenantId: res.user.tenantId, userId: res.user.id, sessionsEnded: res.sessionsEnded }, 'user deactivated');
      return { user: userMessage(res.user), sessionsEnded: res.sessionsEnded };
    },
    async reactivateUser(req, call) {
      authorize(call);
      const user = await admin.reactivateUser(ref(req.actor), ref(req.user));
      log.info({ tenantId: user.tenantId, userId: user.id }, 'user reactivated');
      return { user: userMessage(user) };
    },
    async listUsers(req, call) {
      authorize(call);
      const res = await admin.listUsers(ref(req.actor));
      return { tenant: tenantMessage(res.tenant), users: res.users.map(userMessage) };
    },
  };
}

/** The operators' OAuth administration: registration tokens, clients, the signing key. */
function oauthHandlers(
  admin: Admin,
  log: Logger,
  authorize: Authorize,
  publicUrl: string,
): Pick<IdentityHandlers, 'issueRegistrationToken' | 'listOAuthClients' | 'revokeOAuthClient' | 'rotateSigningKey'> {
  return {
    async issueRegistrationToken(req, call) {
      authorize(call);
      const issued = await admin.issueRegistrationToken(ref(req.actor), {
        allowWrite: req.allowWrite,
        ttlSeconds: req.ttlSeconds || undefined,
      });
      log.info({ tenantId: issued.tenantId, issuedBy: issued.issuedBy, scopes: issued.scopes }, 'registration token issued');
      return {
        token: issued.token,
        tenantId: issued.tenantId,
        scopes: issued.scopes,
        expiresAt: timestamp(new Date(issued.expiresAt)),
        registrationEndpoint: `${publicUrl}${AUTH_BASE_PATH}/oauth2/register`,
      };
    },
    async listOAuthClients(req, call) {
      authorize(call);
      const clients = await admin.listOAuthClients(ref(req.actor));
      return { clients: clients.map(clientMessage) };
    },
    async revokeOAuthClient(req, call) {
      authorize(call);
      const res = await admin.revokeOAuthClient(ref(req.actor), req.clientId);
      log.info({ tenantId: res.client.tenantId, clientId: res.client.clientId }, 'oauth client revoked');
      return { client: clientMessage(res.client), usersNotified: res.usersNotified };
    },
    async rotateSigningKey(_req, call) {
      authorize(call);
      const rotated = await admin.rotateSigningKey();
      log.info(rotated, 'signing key rotated');
      return rotated;
    },
  };
}

export function addIdentityService(
  server: grpc.Server,
  deps: { sessions: Sessions; admin: Admin; adminToken?: string; log: Logger; /** PUBLIC_URL */ publicUrl: string },
): void {
  const { sessions, admin, log } = deps;
  const authorize = adminAuthorizer(deps.adminToken);
  addService(
    server,
    IdentityService,
    {
      ...sessionHandlers(sessions),
      ...directoryHandlers(admin, log, authorize),
      ...oauthHandlers(admin, log, authorize, deps.publicUrl),
    },
    {
      mapError: (err) => (err instanceof IdentityError ? new GrpcError(STATUS[err.kind], err.message) : undefined),
      onInternalError: (method, err) => log.error({ method, err }, 'grpc handler failed'),
    },
  );
}
