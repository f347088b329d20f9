// The two database roles records works with, and the checks that keep them apart.
//
// - The owner (MIGRATION_DATABASE_URL): owns the schema, runs migrations and the development seed.
// - The application role (DATABASE_URL): what the service connects as at run time. It owns no table,
//   is neither superuser nor BYPASSRLS, and holds only the grants of the group role `records_app`
//   (SELECT/INSERT/UPDATE on patients, SELECT/INSERT on the audit log).
//
// Before migrating, provisionAppRole() makes sure `records_app` exists and that the DATABASE_URL user
// can use it: when that user is missing and the owner may create roles, it is created with the
// password from DATABASE_URL (and that password is set again on every run, so rotating the secret
// rotates the password). At start,
// assertAppRole() refuses to run when DATABASE_URL names a role that could see across tenants.
import pg from 'pg';
import type { Pool } from '@simrs/platform/db';

export const APP_GROUP_ROLE = 'records_app';

interface UrlRole {
  user: string;
  password: string | undefined;
}

export function roleOf(url: string): UrlRole {
  const parsed = new URL(url);
  return {
    user: decodeURIComponent(parsed.username) || process.env.PGUSER || process.env.USER || 'postgres',
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
  };
}

/** Errors two processes provisioning the same role at once can hit; the role is there afterwards. */
function isRace(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message ?? '';
  return code === '42710' || code === '23505' || /tuple concurrently updated/.test(message);
}

async function retryOnRace(step: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await step();
      return;
    } catch (err) {
      if (!isRace(err) || attempt >= 3) throw err;
    }
  }
}

export async function provisionAppRole(owner: Pool, appUrl: string): Promise<void> {
  const app = roleOf(appUrl);
  const ownerUser = (await owner.query<{ u: string }>('select current_user as u')).rows[0]!.u;
  if (app.user === ownerUser) {
    throw new Error(
      `DATABASE_URL connects as ${ownerUser}, the schema owner; point it at the application role (e.g. ${APP_GROUP_ROLE}) and MIGRATION_DATABASE_URL at the owner`,
    );
  }
  const exists = async (name: string) => ((await owner.query('select 1 from pg_roles where rolname = $1', [name])).rowCount ?? 0) > 0;
  const password = app.password === undefined ? '' : ` password ${pg.escapeLiteral(app.password)}`;

  // The password in DATABASE_URL is the truth: set it whenever it is given (the owner needs
  // CREATEROLE for that; when it lacks it, the role is a DBA's to manage and is left alone).
  const setPassword = async (name: string) => {
    if (app.password === undefined) return;
    try {
      await retryOnRace(() => owner.query(`alter role ${pg.escapeIdentifier(name)} login${password}`));
    } catch (err) {
      if ((err as { code?: string }).code !== '42501') throw err;
    }
  };

  if (!(await exists(APP_GROUP_ROLE))) {
    const login = app.user === APP_GROUP_ROLE ? `login${password}` : 'nologin';
    await retryOnRace(() => owner.query(`create role ${APP_GROUP_ROLE} ${login} nosuperuser nobypassrls nocreatedb nocreaterole`));
  } else if (app.user === APP_GROUP_ROLE) {
    await setPassword(APP_GROUP_ROLE);
  }
  if (app.user === APP_GROUP_ROLE) return;

  if (!(await exists(app.user))) {
    await retryOnRace(() =>
      owner.query(
        `create role ${pg.escapeIdentifier(app.user)} login${password} nosuperuser nobypassrls nocreatedb nocreaterole in role ${APP_GROUP_ROLE}`,
      ),
    );
    return;
  }
  // Never touch a privileged role; assertAppRole() refuses to run as one anyway.
  const privileged = await owner.query('select 1 from pg_roles where rolname = $1 and (rolsuper or rolbypassrls)', [app.user]);
  if ((privileged.rowCount ?? 0) > 0) return;
  await setPassword(app.user);
  const member = await owner.query('select pg_has_role($1, $2, $3) as m', [app.user, APP_GROUP_ROLE, 'usage']);
  if (!member.rows[0]?.m) await retryOnRace(() => owner.query(`grant ${APP_GROUP_ROLE} to ${pg.escapeIdentifier(app.user)}`));
}

/** Throws when the connected role is superuser, BYPASSRLS, owns a records table or lacks records_app. */
export async function assertAppRole(pool: Pool): Promise<void> {
  const { rows } = await pool.query<{ user: string; super: boolean; bypass: boolean; owns: number; member: boolean }>(
    `select r.rolname as user, r.rolsuper as super, r.rolbypassrls as bypass,
            (select count(*)::int from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = 'records' and c.relowner = r.oid) as owns,
            pg_has_role(r.oid, $1, 'usage') as member
       from pg_roles r where r.rolname = current_user`,
    [APP_GROUP_ROLE],
  );
  const role = rows[0];
  if (!role) throw new Error('cannot read the current database role');
  const problems = [
    role.super && 'is a superuser',
    role.bypass && 'has BYPASSRLS',
    role.owns > 0 && `owns ${role.owns} object(s) in schema records`,
    !role.member && `is not a member of ${APP_GROUP_ROLE}`,
  ].filter(Boolean);
  if (problems.length > 0) {
    throw new Error(
      `DATABASE_URL connects as "${role.user}", which ${problems.join(', ')}: records must run as the application role (e.g. ${APP_GROUP_ROLE}) so that row-level security holds; give the owner's URL as MIGRATION_DATABASE_URL`,
    );
  }
}
