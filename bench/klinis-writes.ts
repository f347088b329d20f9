// Vital-sign writes for the clinical bench (bench/klinis.ts): `vital.record` (blood pressure, heart rate
// and temperature) on the in-progress visits of today, from `connections` concurrent callers, against
// the database's own ceiling for the same statements at the same concurrency: the transaction records'
// store sends for it (BEGIN, set the tenant, the insert-and-audit statement, COMMIT), read off the wire
// of a records process (pg-wire.ts) and driven with pg clients in pipeline mode, the statement prepared,
// each call's visit and patient substituted so that the writes spread as records' do.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import { signPrincipal } from '@simrs/contracts/principal';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import { startWireTap } from './pg-wire.ts';
import type { Statement } from './pg-wire.ts';

export interface Visit {
  id: string;
  pasienId: string;
}

export const VITALS = [
  { key: 'sistolik', value: 128, unit: 'mm[Hg]' },
  { key: 'diastolik', value: 82, unit: 'mm[Hg]' },
  { key: 'nadi', value: 84, unit: '/min' },
  { key: 'suhu', value: 36.9, unit: 'Cel' },
];

const WRAPPING = /^\s*(begin|commit|rollback)\b|set_config\('app\.tenant_id'/i;

/** What records sends for one vital.record: every statement but the transactions' wrapping, in order. */
export async function vitalRecordStatements(
  ownerUrl: string,
  appUrl: string,
  secret: string,
  tenantId: string,
  visit: Visit,
): Promise<Statement[]> {
  const tap = await startWireTap(appUrl);
  const port = await freePort();
  const records = startService('records', 'services/records', {
    HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    DATABASE_URL: tap.through(appUrl),
    MIGRATION_DATABASE_URL: ownerUrl,
    DB_POOL_MAX: '1',
    PRINCIPAL_SECRET: secret,
    LOG_LEVEL: 'warn',
  });
  try {
    await waitForReady(`http://127.0.0.1:${port}/readyz`, 60_000);
    const principal = await signPrincipal(
      { userId: 'dr-bench', tenantId, role: 'doctor', scopes: ['simrs:read', 'simrs:write'] },
      secret,
      600,
    );
    tap.take();
    const res = await fetch(`http://127.0.0.1:${port}/trpc/vital.record`, {
      method: 'POST',
      headers: { 'x-simrs-principal': principal, 'content-type': 'application/json' },
      body: JSON.stringify({ kunjunganId: visit.id, measurements: VITALS }),
    });
    if (res.status !== 200) throw new Error(`vital.record answered ${res.status}: ${await res.text()}`);
    return tap.take().filter((s) => !WRAPPING.test(s.text));
  } finally {
    await records.stop();
    await tap.close();
  }
}

/** `statement` with the captured visit's and patient's ids replaced by `to`'s. */
function retarget(statement: Statement, from: Visit, to: Visit): unknown[] {
  return statement.values.map((v) => v?.replaceAll(from.id, to.id).replaceAll(from.pasienId, to.pasienId) ?? null);
}

/** Transactions per second of BEGIN, set_config, `statements`, COMMIT, pipelined, over `connections` pg clients. */
export async function pgCeiling(
  appUrl: string,
  tenantId: string,
  statements: Statement[],
  captured: Visit,
  visits: Visit[],
  connections: number,
  seconds: number,
): Promise<number> {
  const clients = Array.from({ length: connections }, () => new pg.Client({ connectionString: appUrl, pipeline: true } as pg.ClientConfig));
  await Promise.all(clients.map((c) => c.connect()));
  const names = statements.map(() => `ceiling_${randomUUID().slice(0, 8)}`);
  let done = 0;
  let next = 0;
  const warmupEnd = performance.now() + 1_000;
  const end = warmupEnd + seconds * 1_000;
  async function worker(client: pg.Client): Promise<void> {
    while (performance.now() < end) {
      const visit = visits[next++ % visits.length]!;
      const sent = [
        client.query('begin'),
        client.query("select set_config('app.tenant_id', $1, true)", [tenantId]),
        ...statements.map((s, i) => client.query({ name: names[i]!, text: s.text, values: retarget(s, captured, visit) })),
        client.query('commit'),
      ];
      await Promise.all(sent);
      if (performance.now() >= warmupEnd) done++;
    }
  }
  try {
    await Promise.all(clients.map(worker));
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  return done / seconds;
}

/** vital.record calls per second from `connections` closed-loop callers, spread over `visits`. */
export async function recordsWrites(
  url: string,
  principal: string,
  visits: Visit[],
  connections: number,
  seconds: number,
): Promise<{ rps: number; errors: number }> {
  const pool = new Pool(url, { connections });
  let done = 0;
  let errors = 0;
  let next = 0;
  const warmupEnd = performance.now() + 1_000;
  const end = warmupEnd + seconds * 1_000;
  async function worker(): Promise<void> {
    while (performance.now() < end) {
      const visit = visits[next++ % visits.length]!;
      const res = await pool.request({
        method: 'POST',
        path: '/trpc/vital.record',
        headers: { 'x-simrs-principal': principal, 'content-type': 'application/json' },
        body: JSON.stringify({ kunjunganId: visit.id, measurements: VITALS }),
      });
      await res.body.dump();
      if (performance.now() < warmupEnd) continue;
      if (res.statusCode === 200) done++;
      else errors++;
    }
  }
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    await pool.close();
  }
  return { rps: done / seconds, errors };
}
