// The recovery suite (`npm run test:recovery`): the whole stack on real processes on loopback, over a
// Postgres 15 cluster of its own whose WAL pgBackRest archives continuously into an encrypted,
// compressed repository, and Redis behind three Sentinels.
//
// - Redis master killed (SIGKILL): sign-ins and session checks succeed again within 5 s, with no service
//   restarted, and a sign-out afterwards still evicts the gateway's cached session.
// - Point-in-time restore drill: patients written through the gateway during a backup; the time T is
//   recorded with a snapshot (patients per tenant, the audit log's tail); one tenant's patients are
//   deleted by SQL; the repository is restored to T into a fresh cluster, the stack is started on it,
//   and it serves every patient of T, with counts and audit tail equal to the snapshot. No file of the
//   repository contains a patient's name (while the cluster's own files do).
//
// It prints its figures as a table (docs/faults.md keeps the latest).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { databaseUrl } from '@simrs/platform/db';
import { freePort, waitFor } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import {
  archiveNow,
  backup,
  initArchivedCluster,
  ownedDir,
  restoreTo,
  startCluster,
  stopCluster,
  writeRepository,
} from '../../scripts/lib/pgbackrest.ts';
import type { Repository } from '../../scripts/lib/pgbackrest.ts';
import { randomSecret, startStack } from '../../scripts/lib/stack.ts';
import type { Stack, StackOptions } from '../../scripts/lib/stack.ts';
import { scrape, sum } from '../support/prom.ts';
import { createPatient, filesContaining, KNOWN_NAME, listStatus, servedIds, snapshot } from './world.ts';
import type { Snapshot } from './world.ts';
import { MASTER_NAME, startSentinels } from './sentinels.ts';
import type { SentinelSet } from './sentinels.ts';
import { seedUsers, signInWithOtp } from '../support/users.ts';

const TENANTS = ['rs-a', 'rs-b'] as const;
const admin = (tenant: string) => `admin@${tenant}.test`;
const PROBES = Array.from({ length: 4 }, (_, i) => `dokter${i}@rs-a.test`);
const REDIS_RECOVERY_BOUND_S = 5;
const DB_PREFIX = 'recovery_';

let dir: string;
let pgData: string;
let serverUrl: string;
let repo: Repository;
let sentinels: SentinelSet;
let smtp: SmtpPeer;
let stack: Stack | undefined;
let restoredStack: Stack | undefined;
const secrets = { auth: randomSecret(), principal: randomSecret() };
const figures: Array<[part: string, what: string, measured: string, bound: string]> = [];

function stackOptions(postgresUrl: string): StackOptions {
  return {
    postgresUrl,
    redisUrl: sentinels.url,
    smtpUrl: smtp.url,
    dbPrefix: DB_PREFIX,
    dropDatabasesOnStop: false, // the cluster is thrown away whole
    secrets,
    env: {
      all: { REDIS_SENTINELS: sentinels.sentinels.join(','), REDIS_MASTER_NAME: MASTER_NAME, LOG_LEVEL: 'warn' },
      identity: {
        OTP_SENDS_PER_ADDRESS_PER_HOUR: '100',
        OTP_SENDS_PER_ADDRESS_PER_DAY: '1000',
        SEND_LIMIT_PER_IP_PER_HOUR: '100000',
        VERIFY_LIMIT_PER_IP_PER_HOUR: '100000',
      },
      gateway: { RATE_LIMIT_PER_MINUTE: '1000000' },
    },
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

before(async () => {
  dir = ownedDir(mkdtempSync(join(tmpdir(), 'simrs-recovery-')));
  pgData = join(dir, 'pg');
  const port = await freePort();
  repo = writeRepository(join(dir, 'backup'), { pgData, pgPort: port }, randomBytes(32).toString('base64url'));
  await initArchivedCluster(pgData, port, repo);
  serverUrl = await startCluster(pgData, port);
  [sentinels, smtp] = await Promise.all([startSentinels(), startSmtpPeer()]);
  stack = await startStack(stackOptions(serverUrl));
  await seedUsers(stack, [
    ...TENANTS.map((tenant) => ({ email: admin(tenant), tenant, role: 'tenant_admin' })),
    ...PROBES.map((email) => ({ email, tenant: 'rs-a', role: 'doctor' })),
  ]);
});

after(async () => {
  if (figures.length > 0) {
    const table = ['| part | what | measured | bound |', '|---|---|---|---|', ...figures.map((row) => `| ${row.join(' | ')} |`)];
    console.warn(`\nRecovery figures\n${table.join('\n')}\n`);
  }
  await restoredStack?.stop();
  await stack?.stop();
  await Promise.all([sentinels?.stop(), smtp?.stop()]);
  if (dir) {
    for (const data of [pgData, join(dir, 'restored')]) await stopCluster(data, 'immediate');
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('Redis master killed, three Sentinels', () => {
  test('sign-ins and session checks succeed again within 5 s, no restart, revocations still reach the gateway', async () => {
    const live = stack!;
    const { cookie: watched } = await signInWithOtp(live, smtp, admin('rs-a'));
    assert.equal(await listStatus(live, watched), 200);
    const pids = Object.values(live.services).map((s) => s.child.pid);
    const oldMaster = await sentinels.masterAddress();

    const killedAt = Date.now();
    await sentinels.killMaster();
    let probe = 0;
    const statuses: number[] = [];
    await waitFor(
      'a sign-in and a session check to succeed',
      async () => {
        try {
          const { cookie } = await signInWithOtp(live, smtp, PROBES[probe++ % PROBES.length]!);
          const status = await listStatus(live, cookie);
          statuses.push(status);
          return status === 200;
        } catch (err) {
          statuses.push(Number(/: (\d{3})\b/.exec((err as Error).message)?.[1] ?? 0));
          return false;
        }
      },
      30_000,
      100,
    ).catch(async (err: unknown) => {
      const said = (['identity', 'gateway'] as const).map((n) => `--- ${n}\n${live.services[n].lines.slice(-10).join('\n')}`);
      throw new Error(
        `${(err as Error).message}; master now ${await sentinels.masterAddress()}, answers ${statuses.join(',')}\n${said.join('\n')}`,
      );
    });
    const recovered = (Date.now() - killedAt) / 1000;
    figures.push([
      'Redis master SIGKILL',
      's until a sign-in and a session check succeed',
      recovered.toFixed(1),
      `${REDIS_RECOVERY_BOUND_S}`,
    ]);
    assert.notEqual(await sentinels.masterAddress(), oldMaster, 'the Sentinels promoted the replica');
    assert.ok(recovered <= REDIS_RECOVERY_BOUND_S, `recovered after ${recovered} s`);
    assert.ok(!statuses.includes(500), `no 500 among ${statuses.join(',')}`);
    assert.deepEqual(
      Object.values(live.services).map((s) => [s.child.pid, s.child.exitCode, s.child.signalCode]),
      pids.map((pid) => [pid, null, null]),
      'no service restarted or exited',
    );
    figures.push(['Redis master SIGKILL', 'service restarts', '0', '0']);

    // The gateway listens for revocations again, caches the watched session, and a sign-out evicts it.
    await waitFor('the revocation feed to be live', async () => sum(await scrape(live.urls.gatewayOps), 'gateway_revocations_live') === 1);
    assert.equal(await listStatus(live, watched), 200);
    const out = await fetch(`${live.gatewayUrl}/api/auth/sign-out`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: live.publicUrl, cookie: watched },
      body: '{}',
    });
    assert.equal(out.status, 200, await out.text());
    const signedOutAt = Date.now();
    await waitFor('the signed-out session to be refused', async () => (await listStatus(live, watched)) === 401, 5_000, 20);
    figures.push(['Redis master SIGKILL', 's from a sign-out to its refusal at the gateway', seconds(Date.now() - signedOutAt), '-']);
  });
});

describe('point-in-time restore drill', () => {
  let atT: Snapshot;
  let target: string;
  let restoredUrl: string;

  test('a backup under writes, T recorded, a tenant deleted by SQL, restored to T into a fresh cluster', async () => {
    const live = stack!;
    const cookies = Object.fromEntries(
      await Promise.all(TENANTS.map(async (tenant) => [tenant, (await signInWithOtp(live, smtp, admin(tenant))).cookie] as const)),
    );
    const acknowledged: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const answer = await createPatient(live, cookies[TENANTS[n % 2]!]!);
        assert.equal(answer.status, 200, 'every write during the backup is acknowledged');
        acknowledged.push(answer.id!);
      }
    })();
    const backupStarted = Date.now();
    await backup(repo);
    const backupEnded = Date.now();
    figures.push(['PITR', 's for a full backup under writes', seconds(backupEnded - backupStarted), '-']);
    // Writes go on after the backup, and T comes more than a second after it: pgBackRest keeps a
    // backup's stop time in whole seconds and restores to T only from a backup that stopped before.
    const writtenDuringBackup = acknowledged.length;
    await waitFor(
      'writes after the backup',
      async () => Date.now() - backupEnded > 1_500 && acknowledged.length >= writtenDuringBackup + 20,
    );
    writing = false;
    await writer;

    const recordsUrl = databaseUrl(serverUrl, `${DB_PREFIX}records`);
    atT = await snapshot(recordsUrl);
    const owner = new pg.Client({ connectionString: recordsUrl });
    await owner.connect();
    target = (await owner.query<{ t: string }>('select clock_timestamp()::text as t')).rows[0]!.t;
    assert.ok(atT.patients['rs-b']!.length >= 20, 'rs-b has patients at T');
    for (const id of acknowledged) assert.ok(Object.values(atT.patients).flat().includes(id), `acknowledged ${id} is in the snapshot`);

    // The accident, after T: rs-b's patients deleted by hand.
    const deleted = await owner.query("delete from records.pasien where tenant_id = 'rs-b'");
    await owner.end();
    assert.equal(deleted.rowCount, atT.patients['rs-b']!.length);
    await archiveNow(serverUrl);
    await stack!.stop();
    stack = undefined;

    const restoreStarted = Date.now();
    restoredUrl = await restoreTo(repo, target, join(dir, 'restored'), await freePort());
    figures.push(['PITR', 's from restore start to a writable cluster at T', seconds(Date.now() - restoreStarted), '-']);
  });

  test('the restored cluster holds exactly the snapshot of T: patients per tenant and the audit log tail', async () => {
    assert.ok(restoredUrl, 'restored');
    const restored = await snapshot(databaseUrl(restoredUrl, `${DB_PREFIX}records`));
    assert.deepEqual(restored, atT);
    const counts = TENANTS.map((t) => `${t}: ${atT.patients[t]!.length}`).join(', ');
    figures.push(['PITR', 'patients per tenant at T / after the restore', `${counts} / equal`, 'equal']);
  });

  test('the stack started on the restored cluster serves every patient of T', async () => {
    restoredStack = await startStack(stackOptions(restoredUrl));
    for (const tenant of TENANTS) {
      const { cookie } = await signInWithOtp(restoredStack, smtp, admin(tenant));
      assert.deepEqual([...(await servedIds(restoredStack, cookie))].sort(), [...atT.patients[tenant]!].sort(), tenant);
    }
    const written = await createPatient(restoredStack, (await signInWithOtp(restoredStack, smtp, admin('rs-b'))).cookie);
    assert.equal(written.status, 200, 'the restored cluster takes writes');
  });

  test('the repository is encrypted: no file of it contains a patient name, while the cluster files do', () => {
    assert.ok(filesContaining(join(pgData, 'base'), KNOWN_NAME).length > 0, 'the name is in the cluster files (the scan works)');
    assert.deepEqual(filesContaining(repo.path, KNOWN_NAME), []);
  });
});
