// One token request reads the same rows several times: the client (SIMRS's client authentication
// first, then Better Auth's), and the refresh token (SIMRS's reuse check, Better Auth's grant, the
// grant claim of the access token). This keeps the first read of each for the rest of that request,
// and for nothing else:
// - only at the token endpoint, only rows looked up by their unique key (a client by its id, a refresh
//   token by its stored hash), only through Better Auth's database adapter: the one `database` option
//   (`keptRowsDatabase`) makes, so Better Auth's internal adapter, every plugin and every request's
//   context read through it from the start, whatever the order of the plugins;
// - in Better Auth's request state, which is made anew for each request: no row outlives the request
//   it was read in, so a client disabled or a token rotated by another request is seen by the next one;
// - any write to one of those tables in the request (a rotation, a deletion, a transaction) drops what
//   was kept of that table, before and after the write; callers get a copy each, never a shared row.
// The authoritative checks stay in the statements that change state: a rotation updates the refresh
// token only while it is not revoked (Better Auth's incrementOne), so two requests racing on one token
// cannot both rotate it (token-hooks.ts ends the grant of the one that loses).
import type { BetterAuthOptions } from 'better-auth';
import { defineRequestState, hasRequestState, tryGetCurrentAuthEndpointContext } from '@better-auth/core/context';
import type { DBAdapter, DBAdapterInstance, Where } from '@better-auth/core/db/adapter';
import { kyselyAdapter } from '@better-auth/kysely-adapter';
import { Kysely, PostgresDialect } from 'kysely';
import type { Pool } from '@simrs/platform/db';

/** Models read more than once per token request, with the unique field they are read by. */
const KEPT: Record<string, string> = { oauthClient: 'clientId', oauthRefreshToken: 'token' };
/** Endpoints whose requests keep rows. */
const PATHS = new Set(['/oauth2/token']);

const requestRows = defineRequestState(() => new Map<string, Promise<unknown>>());

/** The rows kept for the current request, if it is one that keeps rows. */
async function keptRows(): Promise<Map<string, Promise<unknown>> | undefined> {
  const path = tryGetCurrentAuthEndpointContext()?.path;
  if (!path || !PATHS.has(path) || !(await hasRequestState())) return undefined;
  return requestRows.get();
}

/** The key of a read by a model's unique field alone (no select, no join), else undefined. */
function keyOf(args: { model: string; where: Where[]; select?: unknown; join?: unknown }): string | undefined {
  const field = KEPT[args.model];
  if (!field || args.select !== undefined || args.join !== undefined || args.where.length !== 1) return undefined;
  const [where] = args.where;
  if (where!.field !== field || (where!.operator ?? 'eq') !== 'eq' || where!.mode === 'insensitive') return undefined;
  return typeof where!.value === 'string' ? `${args.model}\u0000${where!.value}` : undefined;
}

/** Drops what the current request kept of `model` (every kept model when undefined). */
async function forget(model?: string): Promise<void> {
  if (model !== undefined && !(model in KEPT)) return;
  if (!(await hasRequestState())) return;
  const rows = await requestRows.get();
  for (const key of rows.keys()) if (model === undefined || key.startsWith(`${model}\u0000`)) rows.delete(key);
}

/** Runs a write to `model`, dropping what was kept of it before and after. */
const writing =
  <A extends { model: string }, R>(write: (args: A) => Promise<R>) =>
  async (args: A): Promise<R> => {
    await forget(args.model);
    try {
      return await write(args);
    } finally {
      await forget(args.model);
    }
  };

/** A row for one caller: its own object, arrays, dates and nested objects (rows nest one level at most). */
function copyOf<T>(row: T): T {
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row as Record<string, unknown>)) {
    if (Array.isArray(value)) copy[name] = [...(value as unknown[])];
    else if (value instanceof Date) copy[name] = new Date(value);
    else if (typeof value === 'object' && value !== null) copy[name] = { ...value };
    else copy[name] = value;
  }
  return copy as T;
}

/** Better Auth's adapter, keeping the rows of `KEPT` for the rest of a token request (see above). */
export function keepRowsPerRequest(adapter: DBAdapter): DBAdapter {
  const findOne: DBAdapter['findOne'] = async <T>(args: Parameters<DBAdapter['findOne']>[0]): Promise<T | null> => {
    const key = keyOf(args);
    const rows = key ? await keptRows() : undefined;
    if (!key || !rows) return adapter.findOne<T>(args);
    let read = rows.get(key) as Promise<T | null> | undefined;
    if (!read) {
      read = adapter.findOne<T>(args);
      rows.set(key, read);
      // A failed read is not kept: the next caller asks the database again.
      read.catch(() => rows.get(key) === read && rows.delete(key));
    }
    const row = await read;
    return row === null ? null : copyOf(row);
  };
  return {
    ...adapter,
    findOne,
    create: writing(adapter.create) as DBAdapter['create'],
    update: writing(adapter.update) as DBAdapter['update'],
    updateMany: writing(adapter.updateMany),
    delete: writing(adapter.delete) as DBAdapter['delete'],
    deleteMany: writing(adapter.deleteMany),
    consumeOne: writing(adapter.consumeOne) as DBAdapter['consumeOne'],
    incrementOne: writing(adapter.incrementOne) as DBAdapter['incrementOne'],
    // What a transaction writes is not seen here: nothing kept survives it.
    transaction: async (callback) => {
      await forget();
      try {
        return await adapter.transaction(callback);
      } finally {
        await forget();
      }
    },
  };
}

/**
 * Better Auth's `database` option: its Kysely adapter over `pool`, made as Better Auth makes it when
 * given a pg pool (Postgres, with database transactions), keeping rows per token
 * request. Better Auth builds its context, its internal adapter and every plugin's on this adapter.
 */
export function keptRowsDatabase(pool: Pool): DBAdapterInstance {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  const adapter = kyselyAdapter(db, { type: 'postgres', transaction: true });
  return (options: BetterAuthOptions) => keepRowsPerRequest(adapter(options));
}
