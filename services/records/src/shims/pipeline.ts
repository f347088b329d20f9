// SHIM: one statement in its own tenant-bound transaction, sent as the bench's database ceiling (pgbench
// in pipeline mode) sends it: BEGIN, the tenant's set_config, the statement and COMMIT as prepared
// statements, bound and executed back to back, with ONE Sync at the end.
//
// Replaces: four `client.query` calls on pg's pipelined client (BEGIN, set_config, the statement,
// COMMIT), which pg ends each with a Sync (four ReadyForQuery answers, four Query objects and promises,
// four spans from the pg instrumentation) and writes in a send() each.
// Below the public API (pg 8.23.1): `pg/lib/utils.js` (prepareValue, pg's own value mapping), the
// connection's `parsedStatements` (what it has prepared), `stream` (cork/uncork) and its message
// writers (bind, describe, execute, parse, sync), and a `pg.Query` subclass with its handle* callbacks.
// Gain measured: records CPU per `pasien.list` (records straight, 50 connections), four pg queries
// 1.094 ms (median of 5 rounds, range 0.872-1.432) against 0.849 ms with this (range 0.618-1.096):
// 0.245 ms, about 22 % of records' CPU per request. `AB_BASE_REF=<this> AB_PATHS=direct AB_ROUNDS=5
// node bench/ab.ts`, 2026-11-25, load average 14-18 on the shared 2-core machine (stacks in turns).
// Upstream: none found for one Sync per pipelined transaction; pg's pipeline mode (brianc/node-postgres
// pipeline PRs #3534, #3591) syncs every query by design, and prepareValue is not exported.
// Upgrade test: pipeline.upgrade.test.ts (pg's internals used here keep their shape);
// pipeline.int.test.ts (the transaction against a real Postgres).
//
// Why not four pg queries: pg's pipeline mode ends every query with a Sync (and sends BEGIN and
// COMMIT as simple queries), so Postgres answered each read with four ReadyForQuery messages, each
// flushed in a send() of its own, and records handled four queries (four Query objects and promises,
// four spans and histogram records from the pg instrumentation) for one transaction. Sent as one
// Submittable, pg and its instrumentation see one query: one span, named after the statement and
// carrying its text, under the same parent as before.
//
// A failure anywhere makes Postgres skip everything up to the Sync, COMMIT included, so after an
// error the transaction is still open (aborted) and the caller must roll it back before the
// connection goes back to the pool (TenantDb.one does).
//
// Only named statements already prepared on the connection are sent this way (no named Parse), so
// that a failure can never leave pg's record of what the connection has prepared wrong; the first use
// of a statement on a connection goes the long way (four pg queries), which prepares it. An unnamed
// statement (text that varies without bound) is parsed in the same pipeline, as pg would.
import { createRequire } from 'node:module';
import pg from 'pg';
import type { CustomTypesConfig } from 'pg';

// pg's own mapping of values to the wire (dates, arrays, JSON), as its queries bind them.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown };

export const BEGIN = { name: 'records_begin', text: 'begin' };
export const SET_TENANT = { name: 'records_set_tenant', text: "select set_config('app.tenant_id', $1, true)" };
export const COMMIT = { name: 'records_commit', text: 'commit' };

type Parser = (text: string) => unknown;

/** What pg's Connection offers a Submittable (pg/lib/connection.js), as far as this module uses it. */
interface Wire {
  parsedStatements: Record<string, string | undefined>;
  stream: { cork?(): void; uncork?(): void };
  bind(config: { statement: string; values: unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(config: { type: 'P'; name: string }): void;
  execute(config: { portal: string }): void;
  parse(config: { text: string; name: string }): void;
  sync(): void;
}

interface FieldMessage {
  fields: Array<{ name: string; dataTypeID: number; format?: string }>;
}

/** Whether `client` has prepared everything `sendTenantStatement` would bind (named `name` with `text`, unless unnamed). */
export function preparedOn(client: pg.PoolClient, name: string | undefined, text: string): boolean {
  const parsed = (client as unknown as { connection: Wire }).connection.parsedStatements;
  return (
    parsed[BEGIN.name] === BEGIN.text &&
    parsed[SET_TENANT.name] === SET_TENANT.text &&
    parsed[COMMIT.name] === COMMIT.text &&
    (name === undefined || parsed[name] === text)
  );
}

// Value parsers by statement and column types, so that a page's answer does not look up (and pg's
// Result build a row template for) 30-odd columns on every call: a prepared statement answers the
// same columns every time, and the types are checked on each use anyway.
const parsersByTypes = new WeakMap<CustomTypesConfig, Map<string, { oids: number[]; parsers: Parser[] }>>();

function parsersFor(key: string | undefined, msg: FieldMessage, types: CustomTypesConfig): Parser[] {
  const oids = msg.fields.map((f) => f.dataTypeID);
  let byStatement = parsersByTypes.get(types);
  if (!byStatement) parsersByTypes.set(types, (byStatement = new Map()));
  const known = key === undefined ? undefined : byStatement.get(key);
  if (known && known.oids.length === oids.length && known.oids.every((oid, i) => oid === oids[i])) return known.parsers;
  const parsers = oids.map((oid) => types.getTypeParser(oid, 'text') as Parser);
  if (key !== undefined && byStatement.size < 1_000) byStatement.set(key, { oids, parsers });
  return parsers;
}

const MAIN = 2;
const COMMIT_STEP = 3;

const refusals = new WeakSet<Error>();

/** Whether `err` is Postgres refusing a statement of the transaction before its COMMIT (so it did not commit). */
export function refusedBeforeCommit(err: unknown): boolean {
  return err instanceof Error && refusals.has(err);
}

/**
 * pg's Query, as far as this module uses it. pg refuses in pipeline mode any Submittable that is not
 * a Query (pg-cursor and pg-query-stream keep a portal open across round trips, which would take the
 * answers of the queries pipelined behind them); this one ends with its Sync like a Query does, so it
 * is one, overriding how it is sent and how its answers are read.
 */
const QueryBase = pg.Query as unknown as new (config: object) => object;
// What the base constructor is given: it copies its config property by property (descriptors and
// all), and everything it would take from it is set by TenantStatement itself.
const NO_CONFIG = Object.freeze({});

/**
 * The transaction as a pg query: `text`, `name` and `values` are the statement's, so the pg
 * instrumentation names and describes its span after it; pg (or the instrumentation, which wraps
 * it) calls `callback` once, with the error or the statement's rows.
 */
class TenantStatement extends QueryBase {
  readonly text: string;
  readonly name: string | undefined;
  readonly values: unknown[];
  callback: (err: Error | null, rows?: unknown[]) => void;
  readonly #tenantId: string;
  readonly #rowMode: 'array' | undefined;
  readonly #types: CustomTypesConfig;
  #step = 0;
  #rows: unknown[] = [];
  #fields: string[] = [];
  #parsers: Parser[] = [];
  #failed: Error | undefined;
  #finished = false;

  constructor(
    tenantId: string,
    statement: { name?: string; text: string; values: unknown[]; rowMode?: 'array' },
    types: CustomTypesConfig,
    callback: (err: Error | null, rows?: unknown[]) => void,
  ) {
    super(NO_CONFIG);
    this.text = statement.text;
    this.name = statement.name;
    this.values = statement.values;
    this.callback = callback;
    this.#tenantId = tenantId;
    this.#rowMode = statement.rowMode;
    this.#types = types;
  }

  submit(wire: Wire): null {
    const step = (statement: string, values: unknown[]) => {
      wire.bind({ statement, values, valueMapper: prepareValue });
      wire.describe({ type: 'P', name: '' });
      wire.execute({ portal: '' });
    };
    // One write for the whole transaction instead of a system call per message.
    wire.stream.cork?.();
    try {
      step(BEGIN.name, []);
      step(SET_TENANT.name, [this.#tenantId]);
      // An unnamed statement is parsed in the same pipeline (nothing to remember about it).
      if (this.name === undefined) wire.parse({ text: this.text, name: '' });
      step(this.name ?? '', this.values);
      step(COMMIT.name, []);
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: FieldMessage): void {
    if (this.#step !== MAIN) return;
    this.#parsers = parsersFor(this.name, msg, this.#types);
    if (this.#rowMode !== 'array') this.#fields = msg.fields.map((f) => f.name);
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.#step !== MAIN || this.#failed) return;
    try {
      const values = msg.fields;
      const parsers = this.#parsers;
      if (this.#rowMode === 'array') {
        const row = new Array<unknown>(values.length);
        for (let i = 0; i < values.length; i++) row[i] = values[i] === null ? null : parsers[i]!(values[i]!);
        this.#rows.push(row);
      } else {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < values.length; i++) row[this.#fields[i]!] = values[i] === null ? null : parsers[i]!(values[i]!);
        this.#rows.push(row);
      }
    } catch (err) {
      // As pg does: a value that does not parse fails the query once the answer is complete.
      this.#failed = err as Error;
    }
  }

  handleCommandComplete(): void {
    this.#step++;
  }

  handleEmptyQuery(): void {
    this.#step++;
  }

  handleReadyForQuery(): void {
    this.#done(this.#failed ?? null);
  }

  handleError(err: Error): void {
    // Postgres refused a statement before COMMIT: it skips the rest, so nothing was committed.
    if (err instanceof pg.DatabaseError && this.#step < COMMIT_STEP) refusals.add(err);
    this.#done(this.#failed ?? err);
  }

  #done(err: Error | null): void {
    if (this.#finished) return;
    this.#finished = true;
    if (err) this.callback(err);
    else this.callback(null, this.#rows);
  }
}

/**
 * Sends the transaction on `client` (whose connection has prepared BEGIN, SET_TENANT, COMMIT and the
 * statement if named: see `preparedOn`) and resolves with the statement's rows. On a rejection the
 * transaction may be left open: roll it back before releasing the client.
 */
/**
 * Runs `send` (which queues statements on a pipelined client) with the socket corked, so that BEGIN,
 * the tenant, the statement and COMMIT leave in one write instead of four system calls.
 */
export function inOneWrite<T>(client: pg.PoolClient, send: () => T): T {
  const socket = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
  socket?.cork?.();
  try {
    return send();
  } finally {
    socket?.uncork?.();
  }
}

export function sendTenantStatement(
  client: pg.PoolClient,
  tenantId: string,
  statement: { name?: string; text: string; values: unknown[]; rowMode?: 'array' },
  types: CustomTypesConfig,
): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const submittable = new TenantStatement(tenantId, statement, types, (err, rows) => (err ? reject(err) : resolve(rows!)));
    client.query(submittable as unknown as pg.Query);
  });
}
