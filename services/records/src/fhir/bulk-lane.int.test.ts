// An export's lanes against a real Postgres (records' migrations, row-level security): a type's ids,
// time-ordered as imported or synthetic ones are, shared out evenly; lanes writing one type at once
// share its chunk numbers and count and each write their own share of ids once; a
// lane whose cursor moved on elsewhere (the job taken over) or whose job was cancelled writes nothing;
// a type begun before lanes goes on as one lane from its cursor. The lanes run in this thread here;
// bulk-export.int.test.ts runs them on their threads inside records.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import type { Pool } from '@simrs/platform/db';
import { createAppPool, tenantDb } from '../db/index.ts';
import { migratedDatabase } from '../testing/index.ts';
import type { MigratedDatabase } from '../testing/index.ts';
import { JOB_COLUMNS, toJob } from './bulk-jobs.ts';
import type { ExportJob, TypeProgress } from './bulk-jobs.ts';
import { beginTypes, writeLaneOfJob } from './bulk-lane.ts';
import type { LaneTask } from './bulk-lane.ts';
import { laneRanges } from './bulk-sources.ts';

const TENANT = 'rs-lajur';
const PATIENTS = 200;
const PAGE = 7;
const never = () => false;

describe('export lanes', () => {
  let db: MigratedDatabase;
  let owner: pg.Client;
  let pool: Pool;
  let ids: string[];

  before(async () => {
    db = await migratedDatabase('lanes');
    owner = db.owner;
    await owner.query(
      // Ids whose first 48 bits count up, as time-ordered (UUIDv7-like) ids do: all in one corner of
      // the id space, so an equal split of the space would give one lane everything.
      `insert into records.pasien (id, tenant_id, no_rm, nik, nama, tempat_lahir, tanggal_lahir, jenis_kelamin, alamat, kota_kabupaten, provinsi,
                                   created_by, updated_by)
       select (lpad(to_hex(1700000000000 + g), 12, '0') || substr(replace(gen_random_uuid()::text, '-', ''), 13))::uuid,
              $1, lpad(g::text, 8, '0'), '3273' || lpad(g::text, 12, '0'), 'Pasien ' || g, 'Bandung', date '1950-01-01' + g,
              'P', 'Jl. Merdeka No. 1', 'Kota Bandung', 'Jawa Barat', 'synth', 'synth'
       from generate_series(1, $2::int) g`,
      [TENANT, PATIENTS],
    );
    ids = (await owner.query<{ id: string }>('select id::text as id from records.pasien order by id')).rows.map((r) => r.id);
    pool = createAppPool(db.appUrl, { max: 4, statementTimeoutMs: 5_000 });
  });
  after(async () => {
    await pool?.end();
    await db?.drop();
  });

  /** A job of the patients as `progress` says, begun (unless not to) with up to `lanes` lanes, as the worker begins it. */
  async function newJob(progress: Record<string, object> = {}, lanes = 2, begin = true): Promise<ExportJob> {
    // One running export per hospital: the last test's job is over.
    await owner.query(`update records.export_job set status = 'done' where status = 'running'`);
    const { rows } = await owner.query(
      `insert into records.export_job as j (tenant_id, client_id, requested_by, types, request_url, progress)
       values ($1, 'gudang', 'gudang', '{Patient}', 'http://x/$export', $2) returning ${JOB_COLUMNS}`,
      [TENANT, JSON.stringify(progress)],
    );
    const job = toJob(rows[0]);
    if (!begin) return job;
    return (await tenantDb(pool, TENANT).tx((q) => beginTypes(q, job, { lanes, pageSize: PAGE, leaseSeconds: 30 }))) ?? job;
  }
  const task = (job: ExportJob, lane: number): LaneTask => ({
    job,
    tenantId: TENANT,
    ctx: { tenantId: TENANT, organizationId: '' },
    lane,
    pageSize: PAGE,
    leaseSeconds: 30,
  });
  const stored = async (job: ExportJob) => {
    const chunks = (
      await owner.query<{ seq: number; body: string }>('select seq, body from records.export_chunk where job_id = $1 order by seq', [
        job.id,
      ])
    ).rows;
    const written = chunks.flatMap((c) =>
      c.body
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    );
    const [row] = (
      await owner.query<{ progress: Record<string, TypeProgress> }>('select progress from records.export_job where id = $1', [job.id])
    ).rows;
    return { seqs: chunks.map((c) => c.seq), written, progress: row!.progress.Patient ?? { count: 0, seq: 0, done: false, lanes: [] } };
  };

  test('lane ranges: time-ordered ids shared out evenly; fewer lanes for fewer rows than a page each', async () => {
    const ranges = (lanes: number, limit = PAGE) =>
      tenantDb(pool, TENANT).tx((q) => laneRanges(q, 'Patient', { since: undefined, patientId: undefined, limit }, lanes));
    assert.deepEqual(await ranges(1), [{}]);
    const three = await ranges(3);
    assert.equal(three.length, 3);
    assert.equal(three[0]!.from, undefined);
    assert.equal(three[2]!.to, undefined);
    assert.equal(three[0]!.to, three[1]!.from);
    assert.equal(three[1]!.to, three[2]!.from);
    const share = (r: { from?: string; to?: string }) => ids.filter((id) => (!r.from || id >= r.from) && (!r.to || id < r.to)).length;
    for (const r of three) assert.ok(Math.abs(share(r) - PATIENTS / 3) <= 2, `a third each: ${three.map(share).join(', ')}`);
    assert.equal((await ranges(4, 60)).length, 3, '200 rows hold three pages of 60, not four');
    assert.deepEqual(await ranges(2, PATIENTS), [{}], 'one page: one lane');
  });

  test('a sample too thin to share the rows out gives one lane', async () => {
    // One page of the table's several: too few of its ids to draw bounds from.
    const ranges = await tenantDb(pool, TENANT).tx((q) =>
      laneRanges(q, 'Patient', { since: undefined, patientId: undefined, limit: PAGE }, 3, 1),
    );
    assert.deepEqual(ranges, [{}]);
  });

  test('a replica from before lanes is not offered a job that lanes began; one with its cursor at the top it is', async () => {
    const claim = async (call: string) => {
      await owner.query('update records.export_job set lease_until = null'); // its replica is gone
      return (await pool.query<{ id: string }>(`select id::text as id from records.${call}`)).rows.map((r) => r.id);
    };
    const laned = await newJob();
    assert.deepEqual(await claim('export_claim(30)'), [], 'the old claim skips it');
    assert.deepEqual(await claim('export_claim(30, true)'), [laned.id]);
    // Begun by a replica from before lanes, and not since by one with them.
    const old = await newJob({ Patient: { after: ids[9]!, count: 10, seq: 1, done: false } }, 1, false);
    assert.deepEqual(await claim('export_claim(30)'), [old.id]);
  });

  test('two lanes at once: every id once, each in its lane, the chunks numbered 1..n, the count whole', async () => {
    const job = await newJob();
    const done = await Promise.all([0, 1].map((lane) => writeLaneOfJob(tenantDb(pool, TENANT), task(job, lane), never)));
    assert.deepEqual(done, [true, true]);
    const { seqs, written, progress } = await stored(job);
    assert.deepEqual([...written].sort(), ids, 'every patient once');
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'one chunk numbering for the type',
    );
    assert.equal(progress.count, PATIENTS);
    assert.equal(progress.seq, seqs.length);
    assert.equal(progress.done, true);
    assert.equal(progress.lanes!.length, 2);
    assert.ok(progress.lanes!.every((l) => l.done));
    const [first, second] = progress.lanes!;
    assert.equal(first!.to, second!.from);
    assert.ok(first!.after! < first!.to! && second!.after! >= second!.from!, 'each lane stayed in its range');
  });

  test('a lane whose cursor moved on elsewhere (the job taken over) writes nothing and stops', async () => {
    const job = await newJob();
    assert.equal(await writeLaneOfJob(tenantDb(pool, TENANT), task(job, 0), never), true);
    const before = await stored(job);
    // The same lane again from the cursor it began at, as a replica that lost its lease would.
    assert.equal(await writeLaneOfJob(tenantDb(pool, TENANT), task(job, 0), never), false);
    assert.deepEqual(await stored(job), before);
  });

  test('a job that stopped running (failed, or cancelled) gets nothing written', async () => {
    const job = await newJob();
    await owner.query(`update records.export_job set status = 'failed' where id = $1`, [job.id]);
    assert.equal(await writeLaneOfJob(tenantDb(pool, TENANT), task(job, 0), never), false);
    assert.deepEqual((await stored(job)).seqs, []);
  });

  test('a type begun before lanes goes on as one lane from its cursor; the other lane has no share', async () => {
    const begun = { after: ids[49]!, count: 50, seq: 8, done: false };
    const job = await newJob({ Patient: begun });
    assert.deepEqual(
      job.progress.Patient,
      { ...begun, lanes: [{ after: begun.after, done: false }] },
      'not begun again: its cursor is its one lane',
    );
    const done = await Promise.all([0, 1].map((lane) => writeLaneOfJob(tenantDb(pool, TENANT), task(job, lane), never)));
    assert.deepEqual(done, [true, true]);
    const { seqs, written, progress } = await stored(job);
    assert.deepEqual([...written].sort(), ids.slice(50), 'the rest, once');
    assert.equal(seqs[0], 9, 'numbered on from the chunks before');
    assert.equal(progress.count, PATIENTS);
    assert.equal(progress.done, true);
    assert.equal(progress.lanes!.length, 1);
  });

  test('a lane asked to stop leaves its cursor where its last page ended', async () => {
    const job = await newJob({}, 1);
    let pages = 0;
    const stopAfterTwo = () => ++pages > 2;
    assert.equal(await writeLaneOfJob(tenantDb(pool, TENANT), task(job, 0), stopAfterTwo), false);
    const { written, progress } = await stored(job);
    assert.ok(written.length > 0 && written.length < PATIENTS);
    assert.equal(progress.count, written.length);
    assert.equal(progress.lanes![0]!.after, written.at(-1));
    assert.equal(progress.done, false);
  });
});
