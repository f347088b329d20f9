// Tenants and the people in them, in identity's Postgres database. Users live in Better Auth's "user"
// table (its columns are camelCase) with three extra columns declared as Better Auth additional
// fields: "tenantId", "role" and "active". Tenants are our own table (migrations/).
import { randomUUID } from 'node:crypto';
import type { Pool } from '@simrs/platform/db';
import type { Role } from '@simrs/contracts/access';

export interface Tenant {
  id: string;
  name: string;
  createdAt: Date;
}

export interface DirectoryUser {
  id: string;
  tenantId: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  emailVerified: boolean;
  createdAt: Date;
}

const USER_COLUMNS = `id, "tenantId", email, name, role, active, "emailVerified", "createdAt"`;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export interface Directory {
  getTenant(id: string): Promise<Tenant | undefined>;
  listTenants(): Promise<Tenant[]>;
  /** False when a tenant with that id exists already. */
  createTenant(id: string, name: string): Promise<boolean>;
  findUserById(id: string): Promise<DirectoryUser | undefined>;
  findUserByEmail(email: string): Promise<DirectoryUser | undefined>;
  listUsers(tenantId: string): Promise<DirectoryUser[]>;
  /** Undefined when the address is taken already. */
  createUser(user: {
    tenantId: string;
    email: string;
    name?: string;
    role: Role;
    emailVerified?: boolean;
  }): Promise<DirectoryUser | undefined>;
  setRole(userId: string, role: Role): Promise<DirectoryUser | undefined>;
  setActive(userId: string, active: boolean): Promise<DirectoryUser | undefined>;
  countActiveAdmins(tenantId: string): Promise<number>;
}

export function createDirectory(pool: Pool): Directory {
  const one = async (sql: string, params: unknown[]) => (await pool.query<DirectoryUser>(sql, params)).rows[0];
  return {
    async getTenant(id) {
      return (await pool.query<Tenant>('select id, name, created_at as "createdAt" from tenant where id = $1', [id])).rows[0];
    },
    async listTenants() {
      return (await pool.query<Tenant>('select id, name, created_at as "createdAt" from tenant order by id')).rows;
    },
    async createTenant(id, name) {
      const res = await pool.query('insert into tenant (id, name) values ($1, $2) on conflict (id) do nothing', [id, name]);
      return res.rowCount === 1;
    },
    findUserById: (id) => one(`select ${USER_COLUMNS} from "user" where id = $1`, [id]),
    findUserByEmail: (email) => one(`select ${USER_COLUMNS} from "user" where email = $1`, [normalizeEmail(email)]),
    async listUsers(tenantId) {
      return (await pool.query<DirectoryUser>(`select ${USER_COLUMNS} from "user" where "tenantId" = $1 order by email`, [tenantId])).rows;
    },
    createUser(user) {
      const email = normalizeEmail(user.email);
      const name = user.name?.trim() || email.split('@')[0] || email;
      return one(
        `insert into "user" (id, name, email, "emailVerified", "createdAt", "updatedAt", "tenantId", role, active)
         values ($1, $2, $3, $4, now(), now(), $5, $6, true)
         on conflict (email) do nothing
         returning ${USER_COLUMNS}`,
        [randomUUID(), name, email, user.emailVerified ?? false, user.tenantId, user.role],
      );
    },
    setRole: (userId, role) =>
      one(`update "user" set role = $2, "updatedAt" = now() where id = $1 returning ${USER_COLUMNS}`, [userId, role]),
    setActive: (userId, active) =>
      one(`update "user" set active = $2, "updatedAt" = now() where id = $1 returning ${USER_COLUMNS}`, [userId, active]),
    async countActiveAdmins(tenantId) {
      const res = await pool.query<{ n: string }>(
        `select count(*) as n from "user" where "tenantId" = $1 and role = 'tenant_admin' and active`,
        [tenantId],
      );
      return Number(res.rows[0]?.n ?? 0);
    },
  };
}
