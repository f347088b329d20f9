// Tenants and their people: what a platform operator and a tenant's administrators may do. The tenant
// always comes from the acting administrator, never from the request. Used by the gRPC admin API (and
// so the CLI) and by the account page's HTTP endpoints.
import { isRole, ROLES } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import type { Directory, DirectoryUser, Tenant } from '../directory/index.ts';
import { IdentityError, normalizeEmail } from '../directory/index.ts';
import type { IssuedRegistrationToken, OAuthClientInfo, OAuthClients, RegistrationTokens } from '../oauth/index.ts';
import type { Revocation } from '@simrs/contracts/revocation';
import type { Integrations } from './integrations.ts';

/** A user named by id or, for people at a terminal, by e-mail address. */
export interface UserRef {
  userId?: string;
  email?: string;
}

export interface AdminDeps {
  directory: Directory;
  /** Mails a single-use sign-in link that lands on the account page. */
  invite(user: DirectoryUser, tenant: Tenant, inviterName?: string): Promise<void>;
  /** Ends every session of the user at once and tells the gateway; resolves how many there were. */
  endUserSessions(userId: string): Promise<number>;
  /** Tells the gateway to forget what it cached about the user (role changed). */
  forgetUser(userId: string): Promise<void>;
  /** Initial access tokens for OAuth client registration (RFC 7591). */
  registrationTokens: RegistrationTokens;
  oauthClients: OAuthClients;
  integrations: Integrations;
  /** Tells the gateway (and introspection) that credentials ended; see sessions/revocations.ts. */
  publishRevocation(revocation: Revocation): Promise<void>;
  /** A new signing key for tokens; the previous ones stop signing but stay published. */
  rotateSigningKey(): Promise<{ keyId: string; retiredKeyIds: string[] }>;
}

/** The longest lifetime an administrator may give a registration token. */
export const MAX_REGISTRATION_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

/** The roles that read the audit log (records' permission matrix: audit.read), and so see names. */
const AUDIT_READERS: readonly Role[] = ['tenant_admin', 'auditor'];

const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function requireRole(role: string): Role {
  if (!isRole(role)) throw new IdentityError('invalid', `role must be one of ${ROLES.join(', ')}`);
  return role;
}

function requireEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized) || normalized.length > 254) throw new IdentityError('invalid', 'a valid e-mail address is required');
  return normalized;
}

/** Who acts and on whom: the checks every administrative operation starts with. */
function actors(directory: Directory) {
  async function find(ref: UserRef | undefined): Promise<DirectoryUser | undefined> {
    if (ref?.userId) return directory.findUserById(ref.userId);
    if (ref?.email) return directory.findUserByEmail(ref.email);
    return undefined;
  }

  /** The acting user must be an active tenant administrator; their tenant is the one acted on. */
  async function actingAdmin(actor: UserRef | undefined): Promise<{ admin: DirectoryUser; tenant: Tenant }> {
    if (!actor?.userId && !actor?.email) throw new IdentityError('invalid', 'the acting user (id or e-mail address) is required');
    const admin = await find(actor);
    if (!admin || !admin.active) throw new IdentityError('denied', 'the acting user is not an active user');
    if (admin.role !== 'tenant_admin')
      throw new IdentityError('denied', `only a tenant_admin may do this (the acting user is ${admin.role})`);
    const tenant = await directory.getTenant(admin.tenantId);
    if (!tenant) throw new IdentityError('denied', 'the acting user has no tenant');
    return { admin, tenant };
  }

  /** The acting user must be an active user of a role that reads the audit log. */
  async function actingAuditReader(actor: UserRef | undefined): Promise<Tenant> {
    const user = await find(actor);
    if (!user || !user.active) throw new IdentityError('denied', 'the acting user is not an active user');
    if (!AUDIT_READERS.includes(user.role)) throw new IdentityError('denied', `only ${AUDIT_READERS.join(' or ')} may see names`);
    const tenant = await directory.getTenant(user.tenantId);
    if (!tenant) throw new IdentityError('denied', 'the acting user has no tenant');
    return tenant;
  }

  /** A user of the acting admin's tenant; another tenant's user is reported as not found. */
  async function targetIn(tenant: Tenant, ref: UserRef | undefined): Promise<DirectoryUser> {
    if (!ref?.userId && !ref?.email) throw new IdentityError('invalid', 'the user (id or e-mail address) is required');
    const user = await find(ref);
    if (!user || user.tenantId !== tenant.id) throw new IdentityError('not_found', 'no such user in this tenant');
    return user;
  }

  async function keepOneAdmin(tenant: Tenant, user: DirectoryUser): Promise<void> {
    if (user.role === 'tenant_admin' && user.active && (await directory.countActiveAdmins(tenant.id)) <= 1)
      throw new IdentityError('precondition', 'a tenant needs at least one active tenant_admin');
  }

  return { find, actingAdmin, actingAuditReader, targetIn, keepOneAdmin };
}

type Actors = ReturnType<typeof actors>;

/** Platform operator: the tenants (hospitals). */
function tenantOperations(deps: AdminDeps) {
  const { directory } = deps;
  return {
    /** Platform operator: a new hospital and its first administrator, who gets an invitation. */
    async createTenant(input: { tenantId: string; name: string; adminEmail: string; adminName?: string }) {
      const tenantId = input.tenantId.trim();
      if (!TENANT_ID.test(tenantId))
        throw new IdentityError('invalid', 'tenant id must be a slug: lower-case letters, digits and dashes (e.g. rs-demo)');
      const name = input.name.trim();
      if (!name || name.length > 200) throw new IdentityError('invalid', 'tenant name must be 1 to 200 characters');
      const email = requireEmail(input.adminEmail);
      if (await directory.findUserByEmail(email))
        throw new IdentityError('conflict', 'that address cannot be used for a new administrator');
      if (!(await directory.createTenant(tenantId, name))) throw new IdentityError('conflict', `tenant ${tenantId} exists already`);
      const tenant = (await directory.getTenant(tenantId))!;
      const admin = await directory.createUser({ tenantId, email, name: input.adminName, role: 'tenant_admin' });
      if (!admin) throw new IdentityError('conflict', 'that address cannot be used for a new administrator');
      await deps.invite(admin, tenant);
      return { tenant, admin };
    },

    listTenants: () => directory.listTenants(),
  };
}

/** A tenant's users, managed by its administrators; names for audit readers; every user's own tenant. */
function userOperations(deps: AdminDeps, { find, actingAdmin, actingAuditReader, targetIn, keepOneAdmin }: Actors) {
  const { directory } = deps;
  return {
    async inviteUser(actor: UserRef | undefined, input: { email: string; role: string; name?: string }) {
      const { admin, tenant } = await actingAdmin(actor);
      const role = requireRole(input.role);
      const email = requireEmail(input.email);
      let user = await directory.findUserByEmail(email);
      if (user && user.tenantId !== tenant.id) throw new IdentityError('conflict', 'that address cannot be invited');
      if (user && !user.active) throw new IdentityError('precondition', 'that user is deactivated; reactivate them instead');
      if (user && user.role !== role)
        throw new IdentityError('conflict', `that user exists already as ${user.role}; change their role instead`);
      user ??= await directory.createUser({ tenantId: tenant.id, email, name: input.name, role });
      if (!user) throw new IdentityError('conflict', 'that address cannot be invited');
      // Inviting again re-sends the link (the previous one may have expired).
      await deps.invite(user, tenant, admin.name);
      return user;
    },

    async changeRole(actor: UserRef | undefined, target: UserRef | undefined, roleName: string) {
      const { tenant } = await actingAdmin(actor);
      const role = requireRole(roleName);
      const user = await targetIn(tenant, target);
      if (user.role === role) return user;
      await keepOneAdmin(tenant, user);
      const updated = (await directory.setRole(user.id, role))!;
      await deps.forgetUser(user.id);
      return updated;
    },

    async deactivateUser(actor: UserRef | undefined, target: UserRef | undefined) {
      const { tenant } = await actingAdmin(actor);
      const user = await targetIn(tenant, target);
      await keepOneAdmin(tenant, user);
      // Inactive first: from this moment ValidateSession refuses the user whatever is still cached.
      const updated = (await directory.setActive(user.id, false))!;
      const sessionsEnded = await deps.endUserSessions(user.id);
      return { user: updated, sessionsEnded };
    },

    async reactivateUser(actor: UserRef | undefined, target: UserRef | undefined) {
      const { tenant } = await actingAdmin(actor);
      const user = await targetIn(tenant, target);
      return user.active ? user : (await directory.setActive(user.id, true))!;
    },

    async listUsers(actor: UserRef | undefined) {
      const { tenant } = await actingAdmin(actor);
      return { tenant, users: await directory.listUsers(tenant.id) };
    },

    /** Id, name and role of the tenant's users (no addresses), for the people who read the audit log. */
    async listNames(actor: UserRef | undefined) {
      const tenant = await actingAuditReader(actor);
      return (await directory.listUsers(tenant.id)).map((u) => ({ id: u.id, name: u.name, role: u.role }));
    },

    /** The acting user's own tenant (every user sees which hospital they are signed in to). */
    async ownTenant(actor: UserRef | undefined): Promise<Tenant> {
      const user = await find(actor);
      const tenant = user?.active ? await directory.getTenant(user.tenantId) : undefined;
      if (!tenant) throw new IdentityError('denied', 'the acting user is not an active user');
      return tenant;
    },
  };
}

/** A tenant's OAuth clients and registration tokens; the platform's signing key. */
function oauthOperations(deps: AdminDeps, { find, actingAdmin }: Actors) {
  const { directory } = deps;
  return {
    /**
     * An initial access token: whoever presents it once may register an OAuth client of the acting
     * admin's tenant, with `simrs:read` (and `simrs:write` only when `allowWrite`).
     */
    async issueRegistrationToken(
      actor: UserRef | undefined,
      input: { allowWrite: boolean; ttlSeconds?: number },
    ): Promise<IssuedRegistrationToken> {
      const { admin, tenant } = await actingAdmin(actor);
      if (
        input.ttlSeconds !== undefined &&
        (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 60 || input.ttlSeconds > MAX_REGISTRATION_TOKEN_TTL_SECONDS)
      )
        throw new IdentityError('invalid', `the lifetime must be 60 to ${MAX_REGISTRATION_TOKEN_TTL_SECONDS} seconds`);
      return deps.registrationTokens.issue({
        tenantId: tenant.id,
        issuedBy: admin.id,
        allowWrite: input.allowWrite,
        ttlSeconds: input.ttlSeconds,
      });
    },

    async listOAuthClients(actor: UserRef | undefined): Promise<OAuthClientInfo[]> {
      const { tenant } = await actingAdmin(actor);
      return deps.oauthClients.listForTenant(tenant.id);
    },

    /**
     * Revokes one of the tenant's OAuth clients: disabled, its refresh tokens, stored access tokens,
     * consents and device codes deleted, and its live JWT access tokens refused by the gateway at once.
     * Tokens are only ever issued to users of the client's own tenant (oauth/hooks.ts), so a cut-off
     * for this client for each of them reaches every token it holds, whoever approved it.
     */
    async revokeOAuthClient(actor: UserRef | undefined, clientId: string): Promise<{ client: OAuthClientInfo; usersNotified: number }> {
      const { tenant } = await actingAdmin(actor);
      if (!clientId) throw new IdentityError('invalid', 'the client id is required');
      if (!(await deps.integrations.revokeClient(tenant.id, clientId)))
        throw new IdentityError('not_found', 'no such OAuth client in this tenant');
      const users = await directory.listUsers(tenant.id);
      for (const user of users) await deps.publishRevocation({ userId: user.id, clientId });
      return { client: (await deps.oauthClients.find(clientId))!, usersNotified: users.length };
    },

    async listDeviceRequests(actor: UserRef | undefined) {
      const { tenant } = await actingAdmin(actor);
      return deps.integrations.pendingDeviceRequests(tenant.id);
    },

    /** The name of an OAuth client of the acting user's own tenant (the device page names who asks). */
    async clientName(actor: UserRef | undefined, clientId: string): Promise<{ clientId: string; name: string | null }> {
      const user = await find(actor);
      if (!user?.active) throw new IdentityError('denied', 'the acting user is not an active user');
      const client = clientId ? await deps.oauthClients.find(clientId) : undefined;
      if (!client || client.tenantId !== user.tenantId) throw new IdentityError('not_found', 'no such OAuth client in this tenant');
      return { clientId: client.clientId, name: client.name };
    },

    /** Platform operator: rotate the token signing key. */
    rotateSigningKey: () => deps.rotateSigningKey(),
  };
}

export function createAdmin(deps: AdminDeps) {
  const acting = actors(deps.directory);
  return { ...tenantOperations(deps), ...userOperations(deps, acting), ...oauthOperations(deps, acting) };
}

export type Admin = ReturnType<typeof createAdmin>;
