// The database's own ceiling for a hot path: pgbench (Debian's postgresql-client) sending exactly the
// statements records sends for one call, on the same database, as the same role (records_app, so
// row-level security applies), over as many connections as records' pool holds, pipelined as records
// pipelines them (BEGIN, set the tenant, the statement, COMMIT in one round trip), prepared as records
// prepares them. The statement and its values are read off the wire of a records process answering
// that call (pg-wire.ts), so they cannot drift from what the service sends.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signPrincipal } from '@simrs/contracts/principal';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import { recordsAppUrl } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { startWireTap } from './pg-wire.ts';
import type { Statement } from './pg-wire.ts';

const run = promisify(execFile);

/** What records sends around every statement: the transaction and the tenant, not the call's own. */
const WRAPPING = /^\s*(begin|commit|rollback)\b|set_config\('app\.tenant_id'/i;

/**
 * The one statement pasien.list sends for each input, as a doctor of `tenantId`: read off the wire of a
 * records process of its own (one pool connection, the stack's database and secret), so that the
 * stack's records is measured undisturbed. It does not migrate: the stack's records has, maybe at
 * another commit.
 */
export async function pasienListStatements(stack: Stack, tenantId: string, inputs: unknown[]): Promise<Statement[]> {
  const tap = await startWireTap(stack.databases.records);
  const port = await freePort();
  const records = startService('records', 'services/records', {
    HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    DATABASE_URL: tap.through(recordsAppUrl(stack.databases.records)),
    MIGRATE_ON_START: 'false',
    DB_POOL_MAX: '1',
    PRINCIPAL_SECRET: stack.secrets.principal,
    LOG_LEVEL: 'warn',
  });
  try {
    await waitForReady(`http://127.0.0.1:${port}/readyz`);
    const principal = await signPrincipal(
      { userId: randomUUID(), tenantId, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
      stack.secrets.principal,
      600,
    );
    const statements: Statement[] = [];
    for (const input of inputs) {
      tap.take();
      const res = await fetch(`http://127.0.0.1:${port}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(input))}`, {
        headers: { 'x-simrs-principal': principal },
      });
      if (res.status !== 200) throw new Error(`pasien.list answered ${res.status}: ${await res.text()}`);
      const sent = tap.take().filter((s) => !WRAPPING.test(s.text));
      if (sent.length !== 1) throw new Error(`pasien.list sent ${sent.length} statements: ${JSON.stringify(sent)}`);
      statements.push(sent[0]!);
    }
    return statements;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${records.lines.slice(-10).join('\n')}`, { cause: err });
  } finally {
    await records.stop();
    await tap.close();
  }
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
