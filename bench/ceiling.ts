// The database's own ceiling for a hot path: pgbench (Debian's postgresql-client) sending exactly the
// statements records sends for one call, on the same database, as the same role (records_app, so
// row-level security applies), over as many connections as records' pool holds, pipelined as records
// pipelines them (BEGIN, set the tenant, the statement, COMMIT in one round trip), prepared as records
// prepares them. The statement text is captured from records' own store, so it cannot drift.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cursors } from '../services/records/src/server/cursor.ts';
import { pasienStore } from '../services/records/src/pasien/store.ts';
import type { ListPasienInput } from '../services/records/src/pasien/schema.ts';
import type { TenantDb } from '../services/records/src/db/db.ts';

const run = promisify(execFile);

export interface Statement {
  text: string;
  values: unknown[];
}

/** The one statement pasien.list sends for `input`, as the given tenant and actor. */
export async function pasienListStatement(tenantId: string, input: Partial<ListPasienInput>): Promise<Statement> {
  let captured: Statement | undefined;
  const db: TenantDb = {
    tenantId,
    one: async (text, values = []) => ((captured = { text, values }), []),
    tx: () => Promise.reject(new Error('pasien.list sends one statement')),
  };
  const actor = { userId: 'bench', role: 'doctor', requestId: '00000000-0000-4000-8000-000000000000' };
  await pasienStore({ db, actor, cursors: cursors('x'.repeat(32)) }).listPasien({
    limit: 20,
    status: 'active',
    ...input,
  } as ListPasienInput);
  return captured!;
}

export interface Ceiling {
  tps: number;
  latencyMs: number;
}

/**
 * Transactions per second pgbench reaches with `clients` connections for `seconds`, each transaction
 * BEGIN; set_config('app.tenant_id'); `statement`; COMMIT in one pipeline. Values travel as parameters
 * (pgbench -D variables become $n in prepared mode), nulls as literal NULL.
 */
export async function pgbenchCeiling(
  url: string,
  tenantId: string,
  statement: Statement,
  clients: number,
  seconds: number,
): Promise<Ceiling> {
  const defines: string[] = ['-D', `tenant=${tenantId}`];
  const text = statement.text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = statement.values[Number(n) - 1];
    if (value === null || value === undefined) return 'NULL';
    defines.push('-D', `p${n}=${String(value)}`);
    return `:p${n}`;
  });
  const script = join(tmpdir(), `simrs-bench-ceiling-${process.pid}.sql`);
  // pgbench ends a command at the line's end: the statement goes on one line.
  writeFileSync(
    script,
    [
      '\\startpipeline',
      'begin;',
      "select set_config('app.tenant_id', :tenant, true);",
      `${text.replace(/\s+/g, ' ')};`,
      'commit;',
      '\\endpipeline',
      '',
    ].join('\n'),
  );
  const u = new URL(url);
  const { stdout } = await run(
    'pgbench',
    [
      '-n',
      '-M',
      'prepared',
      '-f',
      script,
      '-c',
      String(clients),
      '-j',
      '1',
      '-T',
      String(seconds),
      ...defines,
      '-h',
      u.hostname,
      '-p',
      u.port || '5432',
      '-U',
      decodeURIComponent(u.username),
      decodeURIComponent(u.pathname.slice(1)),
    ],
    { env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) }, timeout: (seconds + 60) * 1000 },
  );
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
  const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1]);
  if (!Number.isFinite(tps)) throw new Error(`pgbench printed no tps:\n${stdout}`);
  return { tps, latencyMs };
}
