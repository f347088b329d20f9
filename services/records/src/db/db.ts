// Tenant-scoped database access. Every statement runs in a transaction whose first act is
// set_config('app.tenant_id', <tenant of the verified principal>, true), so row-level security sees
// that tenant and no other, and the setting dies with the transaction (a pooled connection never
// carries one request's tenant into the next).
//
// The pool's clients run in pipeline mode: BEGIN, set_config, the statement and COMMIT are written
// to the socket together and answered together, one network round trip for a read; once a connection
// has prepared them, as one query with one Sync (shims/pipeline.ts), as the bench's database ceiling sends them.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { CustomTypesConfig, QueryResultRow } from 'pg';
import { createPool } from '@simrs/platform/db';
import type { Pool, PoolClient } from '@simrs/platform/db';
import { BEGIN, COMMIT, inOneWrite, SET_TENANT, preparedOn, refusedBeforeCommit, sendTenantStatement } from '../shims/index.ts';
import { retriedOnce } from './retry.ts';
import { isUnavailable, markNotCommitted } from './unavailable.ts';

const DATE_OID = 1082;
const TIMESTAMPTZ_OID = 1184;
// What Postgres prints for a timestamptz in a UTC session: '2026-01-02 03:04:05.678901+00'.
const UTC_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID);

/**
 * A timestamptz as the ISO 8601 string the API answers with (milliseconds, 'Z'), straight from the
 * text, as Date#toISOString would give it (fractions below a millisecond dropped), without building a
 * Date per value; anything else (years past 9999, BC) goes through a Date.
 */
export function isoTimestamp(text: string): string {
  // The usual cases, cut and joined without a regular expression: whole seconds ('2026-01-02
  // 03:04:05+00') or a fraction of one to six digits (Postgres drops its trailing zeros).
  const n = text.length;
  if (n >= 22 && n <= 29 && text.charCodeAt(4) === 45 && text.charCodeAt(10) === 32 && text.endsWith('+00')) {
    if (n === 22) return `${text.slice(0, 10)}T${text.slice(11, 19)}.000Z`;
    if (text.charCodeAt(19) === 46)
      return `${text.slice(0, 10)}T${text.slice(11, 19)}.${text.slice(20, Math.min(n - 3, 23)).padEnd(3, '0')}Z`;
  }
  const m = UTC_TEXT.exec(text);
  if (!m) return (parseTimestamptz(text) as Date).toISOString();
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}

// Birth dates stay 'YYYY-MM-DD' strings: a JS Date would shift them by the process time zone.
// Timestamps come as UTC text, turned into the API's ISO strings without a Date (isoTimestamp).
const APP_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === DATE_OID
      ? (value: string) => value
      : oid === TIMESTAMPTZ_OID
        ? isoTimestamp
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function createAppPool(url: string, opts: { max: number; statementTimeoutMs: number }): Pool {
  return createPool(url, {
    max: opts.max,
    pipeline: true,
    statement_timeout: opts.statementTimeoutMs,
    idle_in_transaction_session_timeout: Math.max(opts.statementTimeoutMs * 2, 10_000),
    application_name: 'records',
    options: '-c TimeZone=UTC',
    types: APP_TYPES,
  });
}

export interface Querier {
  query<R extends QueryResultRow>(sql: string, params?: unknown[], opts?: { prepare?: boolean }): Promise<R[]>;
  /**
   * Each row handed to `onRow` as it arrives, none collected (pg keeps no rows for a query with a
   * 'row' listener): a large result's rows are garbage as soon as they are used, young, and the caller
   * works while Postgres is still sending. Resolves with the number of rows.
   */
  forEach<R extends QueryResultRow>(sql: string, params: unknown[], onRow: (row: R) => void): Promise<number>;
}

function forEachRow<R extends QueryResultRow>(
  client: PoolClient,
  sql: string,
  params: unknown[],
  onRow: (row: R) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let failed: unknown;
    const query = new pg.Query<R>({ text: sql, values: params });
    query.on('row', (row: R) => {
      if (failed !== undefined) return;
      try {
        onRow(row);
        rows++;
      } catch (err) {
        // The rest of the result still arrives (a query cannot be stopped mid-result); it is ignored.
        failed = err;
      }
    });
    query.on('error', reject);
    query.on('end', () => (failed === undefined ? resolve(rows) : reject(failed as Error)));
    void client.query(query);
  });
}

/**
 * Statements whose text comes from a small, fixed set are prepared once per connection (named), so
 * that Postgres plans them once instead of on every request. Statements whose text varies without
 * bound (an UPDATE of whichever fields were given) stay unnamed.
 */
function statement(text: string, values: unknown[], prepare: boolean, rowMode?: 'array'): pg.QueryConfig {
  const config: pg.QueryConfig = prepare ? { name: statementName(text), text, values } : { text, values };
  if (rowMode) (config as pg.QueryArrayConfig).rowMode = rowMode;
  return config;
}

// Names by text, so that a statement's text is hashed once rather than on every request (the texts
// that are prepared come from a small, fixed set; the bound only guards against a mistake).
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `r_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (names.size < 1_000) names.set(text, name);
  }
  return name;
}

export interface OneOptions {
  prepare?: boolean;
  rowMode?: 'array';
  /** Overrides the TenantDb's own: a GET that records state (an export's kick-off, a poll's time) is not idempotent. */
  idempotent?: boolean;
}

/** The only way handlers reach Postgres: bound to one tenant for its whole life. */
export interface TenantDb {
  readonly tenantId: string;
  /**
   * One statement in its own transaction: a single round trip. With `rowMode: 'array'` each row is
   * an array of the selected values in select-list order (R is then that array's type): pg builds a
   * row object from a per-query template copied in dictionary mode, so reading a page of 20 patients
   * of 30 columns key by key costs more than reading them by position.
   */
  one<R extends QueryResultRow>(sql: string, params?: unknown[], opts?: OneOptions): Promise<R[]>;
  /** Several statements in one transaction (committed when `work` resolves, rolled back when it throws). */
  tx<T>(work: (q: Querier) => Promise<T>): Promise<T>;
}

async function settle(pending: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(pending);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** One statement in its own transaction on `client` (TenantDb.one). */
async function oneOn<R extends QueryResultRow>(
  client: PoolClient,
  discard: (why: Error) => void,
  tenantId: string,
  sql: string,
  params: unknown[],
  opts: OneOptions,
): Promise<R[]> {
  const config = statement(sql, params, opts.prepare ?? true, opts.rowMode);
  // The usual case: everything is prepared on this connection, one Sync for the transaction.
  if (preparedOn(client, config.name, sql)) {
    try {
      return (await sendTenantStatement(
        client,
        tenantId,
        { name: config.name, text: sql, values: params, rowMode: opts.rowMode },
        APP_TYPES,
      )) as R[];
    } catch (err) {
      if (refusedBeforeCommit(err)) markNotCommitted(err);
      // Postgres skipped the rest of the transaction, COMMIT included: end it before the release.
      // A connection whose ROLLBACK failed may still be inside the aborted transaction: it is not
      // handed to the next request.
      if (!isUnavailable(err)) await client.query('rollback').catch((rollbackErr: unknown) => discard(rollbackErr as Error));
      throw err;
    }
  }
  // The first time on this connection: as pg pipelines queries (a Sync each), which prepares
  // BEGIN, the tenant, the statement and COMMIT for the next time.
  const [begin, set, main, commit] = inOneWrite(
    client,
    () =>
      [client.query(BEGIN), client.query({ ...SET_TENANT, values: [tenantId] }), client.query<R>(config), client.query(COMMIT)] as const,
  );
  // The statement's own error is the interesting one; COMMIT after a failure is a ROLLBACK.
  await settle([begin, set, main, commit]).catch(async (err) => {
    await main.catch((mainErr: unknown) => {
      // Postgres refused the statement (or BEGIN before it): the transaction ended without COMMIT.
      if (mainErr instanceof pg.DatabaseError) markNotCommitted(mainErr);
      throw mainErr;
    });
    throw err;
  });
  return (await main).rows;
}

/** `work`'s statements in one transaction on `client` (TenantDb.tx). */
async function txOn<T>(client: PoolClient, tenantId: string, work: (q: Querier) => Promise<T>): Promise<T> {
  const opening = inOneWrite(client, () => [client.query('begin'), client.query({ ...SET_TENANT, values: [tenantId] })]);
  opening.forEach((p) => p.catch(() => {}));
  const q: Querier = {
    query: async <R extends QueryResultRow>(sql: string, params: unknown[] = [], opts: { prepare?: boolean } = {}) =>
      (await client.query<R>(statement(sql, params, opts.prepare ?? false))).rows,
    forEach: (sql, params, onRow) => forEachRow(client, sql, params, onRow),
  };
  let result: T;
  try {
    result = await work(q);
  } catch (err) {
    await client.query('rollback').catch(() => {});
    // A failed BEGIN explains everything after it. Either way COMMIT was never sent.
    const cause = await settle(opening).then(
      () => err,
      (openingErr: unknown) => openingErr,
    );
    markNotCommitted(cause);
    throw cause;
  }
  await settle([...opening, client.query('commit')]);
  return result;
}

export interface TenantDbOptions {
  /** The work changes nothing when done twice (a read): sent again after any unavailability (db/retry.ts). */
  idempotent?: boolean;
}

export function tenantDb(pool: Pool, tenantId: string, options: TenantDbOptions = {}): TenantDb {
  if (!tenantId) throw new Error('tenant id is required');
  const idempotent = options.idempotent ?? false;

  async function withClient<T>(use: (client: PoolClient, discard: (why: Error) => void) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch((err: unknown) => {
      markNotCommitted(err); // nothing was sent
      throw err;
    });
    let broken: Error | undefined;
    try {
      return await use(client, (why) => (broken = why));
    } catch (err) {
      if (isUnavailable(err)) broken = err as Error;
      throw err;
    } finally {
      // A connection that failed underneath us is discarded rather than handed to the next request.
      client.release(broken);
    }
  }

  return {
    tenantId,
    one<R extends QueryResultRow>(sql: string, params: unknown[] = [], opts: OneOptions = {}) {
      return retriedOnce(
        () => withClient((client, discard) => oneOn<R>(client, discard, tenantId, sql, params, opts)),
        opts.idempotent ?? idempotent,
      );
    },
    tx<T>(work: (q: Querier) => Promise<T>) {
      return retriedOnce(() => withClient((client) => txOn(client, tenantId, work)), idempotent);
    },
  };
}
