// Postgres failover under writes (part of `npm run test:recovery`): the stack over Patroni (two nodes,
// synchronous replication, one etcd) behind HAProxy, patients written through the gateway at a steady
// rate, and
// - the primary killed (SIGKILL of its Patroni and its postmaster): the replica is promoted within
//   Patroni's own bound (ttl + loop_wait + retry_timeout), a committed write succeeds again within 5 s
//   of the promotion, no acknowledged write is missing, no answer is a 500, every 503 carries
//   Retry-After, and no service restarted;
// - a planned switchover (after the old primary rejoined as the synchronous replica): writes are
//   unavailable for under 5 s, none acknowledged is lost.
// It prints its figures as a table (docs/faults.md keeps the latest).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { databaseUrl } from '@simrs/platform/db';
import { waitFor } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../../scripts/lib/redis.ts';
import type { RedisServer } from '../../scripts/lib/redis.ts';
import { startStack } from '../../scripts/lib/stack.ts';
import type { Stack } from '../../scripts/lib/stack.ts';
import { scrape, sum } from '../support/prom.ts';
import { seedUsers, signInWithOtp } from '../support/users.ts';
import { PROMOTION_BOUND_SECONDS, startPatroni } from './patroni.ts';
import type { PatroniCluster } from './patroni.ts';
import { createPatient } from './world.ts';

const RATE_PER_SECOND = Number(process.env.FAILOVER_RATE ?? 200);
const MAX_IN_FLIGHT = 32;
/** The stack's own part: from the replica's promotion to a committed write through the gateway. */
const RECOVERY_BOUND_SECONDS = 5;
const ADMIN = 'admin@rs-failover.test';

let cluster: PatroniCluster | undefined;
let redis: RedisServer | undefined;
let smtp: SmtpPeer | undefined;
let stack: Stack | undefined;
let cookie: string;
const figures: Array<[part: string, what: string, measured: string, bound: string]> = [];
/** records' second tries counted in the figures so far (its counter only grows). */
const retriesCounted = { idempotent: 0, not_committed: 0 };

interface Sent {
  startedAt: number;
  endedAt: number;
  status: number;
  retryAfter: boolean;
  id?: string;
}

/** Writes patients through the gateway at RATE_PER_SECOND until `stop()`; every answer is kept. */
function writeSteadily(): { answers: Sent[]; stop(): Promise<void> } {
  const answers: Sent[] = [];
  const inFlight = new Set<Promise<void>>();
  let running = true;
  const startedAt = Date.now();
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const due = startedAt + (n * 1000) / RATE_PER_SECOND;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
      const sentAt = Date.now();
      const one = createPatient(stack!, cookie)
        .catch(() => ({ status: 0, retryAfter: false, id: undefined }))
        .then((answer) => void answers.push({ startedAt: sentAt, endedAt: Date.now(), ...answer }))
        .finally(() => inFlight.delete(one));
      inFlight.add(one);
    }
  })();
  return {
    answers,
    async stop() {
      running = false;
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/** How many of `ids` the primary holds, asked through HAProxy until it routes to one again. */
async function countOnPrimary(ids: string[]): Promise<number> {
  let found: number | undefined;
  await waitFor(
    'the primary to answer through HAProxy',
    async () => {
      const client = new pg.Client({ connectionString: databaseUrl(cluster!.url, 'failover_records') });
      client.on('error', () => {});
      try {
        await client.connect();
        const rows = await client.query<{ n: number }>('select count(*)::int as n from records.pasien where id = any($1::uuid[])', [ids]);
        found = rows.rows[0]!.n;
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => {});
      }
    },
    60_000,
    500,
  );
  return found!;
}

/** What every fault must keep: no 500, Retry-After on every 503, every acknowledged write present. */
async function checkAnswers(part: string, answers: Sent[]): Promise<void> {
  const byStatus = new Map<number, number>();
  for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
  const e503 = answers.filter((a) => a.status === 503);
  const acknowledged = answers.flatMap((a) => (a.status === 200 && a.id ? [a.id] : []));
  const missing = acknowledged.length - (await countOnPrimary(acknowledged));
  const statuses = [...byStatus].map(([s, n]) => `${s === 0 ? 'no answer' : s}: ${n}`).join(', ');
  const span = (Math.max(...answers.map((a) => a.endedAt)) - Math.min(...answers.map((a) => a.startedAt))) / 1000;
  figures.push([part, 'writes sent over s; answers by status', `${answers.length} over ${span.toFixed(1)}; ${statuses}`, '-']);
  const scraped = await scrape(stack!.urls.records);
  const retried = (['idempotent', 'not_committed'] as const).map((reason) => {
    const total = sum(scraped, 'records_db_retries_total', { reason });
    const during = total - retriesCounted[reason];
    retriesCounted[reason] = total;
    return during;
  });
  figures.push([part, 'database work sent again: reads; writes not committed', retried.join('; '), '-']);
  figures.push([
    part,
    '500s; 503s without Retry-After; acknowledged writes missing',
    `${byStatus.get(500) ?? 0}; ${e503.filter((a) => !a.retryAfter).length}; ${missing}`,
    '0; 0; 0',
  ]);
  assert.equal(byStatus.get(500) ?? 0, 0, `no 500 (${statuses})`);
  assert.equal(e503.filter((a) => !a.retryAfter).length, 0, 'every 503 carries Retry-After');
  assert.equal(missing, 0, 'acknowledged writes missing');
}

before(async () => {
  [cluster, redis, smtp] = await Promise.all([startPatroni(), startRedisServer(), startSmtpPeer()]);
  stack = await startStack({
    postgresUrl: cluster.url,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
    dbPrefix: 'failover_',
    dropDatabasesOnStop: false, // the cluster is thrown away whole
    env: { all: { LOG_LEVEL: 'warn' }, gateway: { RATE_LIMIT_PER_MINUTE: '10000000' } },
  });
  await seedUsers(stack, [{ email: ADMIN, tenant: 'rs-failover', role: 'tenant_admin' }]);
  ({ cookie } = await signInWithOtp(stack, smtp, ADMIN));
});

after(async () => {
  if (figures.length > 0) {
    const table = ['| part | what | measured | bound |', '|---|---|---|---|', ...figures.map((row) => `| ${row.join(' | ')} |`)];
    console.warn(`\nFailover figures (patients written through the gateway at up to ${RATE_PER_SECOND}/s)\n${table.join('\n')}\n`);
  }
  await stack?.stop();
  await Promise.all([redis?.stop(), smtp?.stop()]);
  await cluster?.stop();
});

describe('Postgres primary failover under writes', () => {
  let killed: string;

  test(`primary killed: the replica promoted within ${PROMOTION_BOUND_SECONDS} s, writes again within ${RECOVERY_BOUND_SECONDS} s of it, nothing acknowledged lost`, async () => {
    const pids = Object.values(stack!.services).map((s) => s.child.pid);
    const writer = writeSteadily();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const killedAt = Date.now();
    killed = await cluster!.killPrimary();
    // Backends orphaned by the killed postmaster may commit for a moment yet (their standby still
    // acknowledges), so writes succeed again only once counted from the replica's promotion.
    let promotedAt: number | undefined;
    void (async () => {
      while ((await cluster!.primary()) === killed) await new Promise((resolve) => setTimeout(resolve, 200));
      promotedAt = Date.now();
    })().catch(() => {}); // no primary at all: the figures say so
    const recoveredAt = () =>
      promotedAt === undefined ? undefined : writer.answers.find((a) => a.startedAt >= promotedAt! && a.status === 200)?.endedAt;
    const deadline = killedAt + (PROMOTION_BOUND_SECONDS + 30) * 1000;
    let recovered: number | undefined;
    while (!(recovered = recoveredAt()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await writer.stop();
    const since = (from: number, to: number | undefined) => (to === undefined ? Number.POSITIVE_INFINITY : (to - from) / 1000);
    const promoted = since(killedAt, promotedAt);
    const writing = since(promotedAt ?? killedAt, recovered);
    const part = 'primary SIGKILL (Patroni and postmaster)';
    figures.push(
      [part, 's until the replica is primary (Patroni)', promoted.toFixed(1), `${PROMOTION_BOUND_SECONDS}`],
      [part, 's from the promotion until a committed write succeeds (the stack)', writing.toFixed(1), `${RECOVERY_BOUND_SECONDS}`],
      [part, 's from the kill until a committed write succeeds', since(killedAt, recovered).toFixed(1), '-'],
    );
    assert.ok(promoted <= PROMOTION_BOUND_SECONDS, `the replica was primary after ${promoted} s`);
    assert.ok(writing <= RECOVERY_BOUND_SECONDS, `writes succeeded again ${writing} s after the promotion`);
    assert.notEqual(await cluster!.primary(), killed, 'the replica was promoted');
    await checkAnswers('primary SIGKILL (Patroni and postmaster)', writer.answers);
    assert.deepEqual(
      Object.values(stack!.services).map((s) => [s.child.pid, s.child.exitCode, s.child.signalCode]),
      pids.map((pid) => [pid, null, null]),
      'no service restarted or exited',
    );
  });

  test('planned switchover: writes unavailable under 5 s, nothing acknowledged lost', async () => {
    assert.ok(killed, 'the failover test ran');
    await cluster!.restart(killed);
    await cluster!.waitSyncReplica(killed);
    const writer = writeSteadily();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const switchedAt = Date.now();
    await cluster!.switchover();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await writer.stop();
    assert.equal(await cluster!.primary(), killed, 'the switchover happened');
    // The longest time between two acknowledged writes from the switchover on.
    const acks = writer.answers
      .filter((a) => a.status === 200)
      .map((a) => a.endedAt)
      .sort((a, b) => a - b);
    let gap = 0;
    for (let i = 1; i < acks.length; i++) if (acks[i]! >= switchedAt) gap = Math.max(gap, acks[i]! - acks[i - 1]!);
    figures.push([
      'planned switchover',
      's of write unavailability (longest gap between acknowledged writes)',
      (gap / 1000).toFixed(1),
      '5',
    ]);
    assert.ok(gap < 5_000, `writes unavailable for ${gap} ms`);
    await checkAnswers('planned switchover', writer.answers);
  });
});
