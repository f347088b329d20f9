// Removing Bulk Data exports whose files are too large to delete in one statement, against the real
// records process and Postgres: a DELETE answers at once and the job is gone for its client at once;
// its files, and those of expired jobs, are then removed in bounded batches, so a large job of one
// hospital holds back neither itself nor another hospital's expiry, and replicas sweeping at once do not
// trip over each other. A large hospital's chunk is a page of output in TOAST, deleted with it; here each
// chunk's deletion is made to take CHUNK_DELETE_MS (a trigger), with a short statement timeout, so that
// LARGE small chunks stand for a large hospital's gigabytes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@simrs/platform/testing';
import { createAppPool } from '../db/index.ts';
import { sweepExports } from '../fhir/index.ts';
import { fhirCall, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

const STATEMENT_TIMEOUT_MS = 200;
const CHUNK_DELETE_MS = 2;
/** Chunks deleted per statement: well within the timeout. */
const REMOVE_BATCH = 20;
/** Chunks of the large jobs: more than one statement deletes within the timeout (checked below). */
const LARGE = 1_000;
const TENANT = 'rs-besar';
const OTHER = 'rs-kecil';
const CLIENT = 'gudang-data';

let r: RecordsUnderTest;

before(async () => {
  r = await startRecords('bulk_removal', {
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    EXPORT_REMOVE_BATCH: String(REMOVE_BATCH),
    EXPORT_WORKER_INTERVAL_MS: '100',
  });
  await r.owner.query(`create function records.slow_chunk_delete() returns trigger language plpgsql as $$
      begin perform pg_sleep(${CHUNK_DELETE_MS / 1000}); return old; end $$;
    create trigger slow_chunk_delete before delete on records.export_chunk for each row execute function records.slow_chunk_delete()`);
});

after(async () => {
  await r?.stop();
});

/** A finished job of `tenant` with `chunks` chunks of its Observation file (each padded to `bytes`), expired or not; its id. */
async function finishedJob(tenant: string, chunks: number, expired = false, bytes = 0): Promise<string> {
  // One statement: an expired job is not to be removed between its row and its chunks.
  const { rows } = await r.owner.query<{ id: string }>(
    `with job as (
       insert into records.export_job (tenant_id, client_id, requested_by, types, request_url, status, progress, finished_at, expires_at)
       values ($1, $2, $2, '{Observation}', 'https://simrs.test/fhir/$export', 'done',
               jsonb_build_object('Observation', jsonb_build_object('count', $3::int, 'seq', $3::int, 'done', true, 'lanes', '[]'::jsonb)),
               now(), now() + case when $4 then interval '-1 second' else interval '1 hour' end)
       returning id),
     chunks as (
       insert into records.export_chunk (job_id, tenant_id, type, seq, lines, body)
       select job.id, $1, 'Observation', g, 1, rpad('{"resourceType":"Observation","id":"' || g || '"}', $5::int, ' ') from job, generate_series(1, $3::int) g)
     select id::text from job`,
    [tenant, CLIENT, chunks, expired, bytes],
  );
  return rows[0]!.id;
}

const chunksOf = async (job: string) =>
  (await r.owner.query<{ n: number }>('select count(*)::int as n from records.export_chunk where job_id = $1', [job])).rows[0]!.n;
const jobExists = async (job: string) => (await r.owner.query('select 1 from records.export_job where id = $1', [job])).rowCount === 1;

/** Whether one statement, with records' timeout, deletes the job and its chunks (rolled back either way). */
async function deletableInOneStatement(job: string): Promise<boolean> {
  await r.owner.query('begin');
  try {
    await r.owner.query(`set local statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
    await r.owner.query('delete from records.export_job where id = $1', [job]);
    return true;
  } catch (err) {
    assert.equal((err as { code?: string }).code, '57014', 'cancelled by the statement timeout');
    return false;
  } finally {
    await r.owner.query('rollback');
  }
}

describe('Bulk Data export: removing large jobs', () => {
  test('DELETE of a job too large for one statement: 202 at once, then 404 for it and its file, and its chunks go in batches', async () => {
    const job = await finishedJob(TENANT, LARGE);
    assert.equal(await deletableInOneStatement(job), false, 'the job is too large to delete in one statement');
    const status = `${r.url}${r.prefix}/fhir/$export-status/${job}`;
    const file = `${r.url}${r.prefix}/fhir/$export-file/${job}/Observation`;
    const client = () => r.principal(TENANT, 'backend_service', { userId: CLIENT, clientId: CLIENT, scopes: ['system/*.rs'] });
    assert.equal((await fhirCall(r, 'GET', status, { principal: await client() })).status, 200, 'the finished job before');

    const removed = await fhirCall(r, 'DELETE', status, { principal: await client() });
    assert.equal(removed.status, 202, JSON.stringify(removed.body));
    assert.equal((await fhirCall(r, 'GET', status, { principal: await client() })).status, 404);
    assert.equal((await fetch(file, { headers: { 'x-simrs-principal': await client() } })).status, 404);
    assert.equal((await fhirCall(r, 'DELETE', status, { principal: await client() })).status, 404, 'removed once');

    await waitFor('its chunks and then the job to be removed', async () => !(await jobExists(job)), 60_000, 100);
    assert.equal(await chunksOf(job), 0);
  });

  test("expired jobs go in batches: a large one of one hospital holds back neither itself nor another hospital's", async () => {
    const large = await finishedJob(TENANT, LARGE, true);
    const small = await finishedJob(OTHER, 10, true);
    await waitFor("the other hospital's expired job to be removed", async () => !(await jobExists(small)), 60_000, 50);
    assert.ok((await chunksOf(large)) > 0, 'the small job went while the large one was still being swept');
    await waitFor('the large expired job to be removed', async () => !(await jobExists(large)), 60_000, 100);
    assert.equal(await chunksOf(large), 0);
  });

  test('a download under way when its job is removed is broken off, not ended as a short file', async () => {
    // More than loopback's socket buffers hold, so the download is still reading chunks when the job goes.
    const job = await finishedJob(TENANT, 400, false, 100_000);
    const principal = await r.principal(TENANT, 'backend_service', { userId: CLIENT, clientId: CLIENT, scopes: ['system/*.rs'] });
    const res = await fetch(`${r.url}${r.prefix}/fhir/$export-file/${job}/Observation`, { headers: { 'x-simrs-principal': principal } });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    assert.ok(!(await reader.read()).done);
    const removed = await fhirCall(r, 'DELETE', `${r.url}${r.prefix}/fhir/$export-status/${job}`, { principal });
    assert.equal(removed.status, 202);
    await assert.rejects(async () => {
      while (!(await reader.read()).done);
    }, 'the transfer fails');
  });

  test('sweeps of several replicas at once take turns on a job: none fails, and the job and its files go', async () => {
    const pool = createAppPool(r.appUrl, { max: 4, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    try {
      const job = await finishedJob(TENANT, LARGE, true);
      // records' own sweep is a third.
      const sweeps = [1, 2].map(() => sweepExports(pool, { batch: REMOVE_BATCH, stopping: () => false }));
      await Promise.all(sweeps);
      await waitFor('the job to be removed', async () => !(await jobExists(job)), 60_000, 100);
      assert.equal(await chunksOf(job), 0);
    } finally {
      await pool.end();
    }
  });
});
