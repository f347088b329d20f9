// FHIR Bulk Data export against the real records process and Postgres: the kick-off rules, the job
// polled to its manifest, every NDJSON line valid FHIR R4 (@medplum/core's validator), counts equal to
// the database's, nothing of the other hospital, `_since`, who may see a job, cancellation, the audit
// rows, and records killed mid-export then started again: every id exactly once. The data comes from the
// synthetic clinical generator; BULK_EXPORT_PATIENTS sets its size (small by default, for CI).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fhirValidationPool } from '@simrs/platform/testing/fhir-validation-pool';
import { freePort, startService, waitFor, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { generateClinical, SYNTH_CLINICS } from '../klinis/index.ts';
import { dataOf, fhirCall, newPasien, startRecords } from '../testing/index.ts';
import type { Json, RecordsUnderTest } from '../testing/index.ts';

const TENANT = 'rs-ekspor';
const OTHER = 'rs-lain';
const PATIENTS = Number(process.env.BULK_EXPORT_PATIENTS ?? 25);
const TYPES = ['Patient', 'Encounter', 'Observation', 'Condition', 'AllergyIntolerance'];
const ASYNC = { prefer: 'respond-async', accept: 'application/fhir+json' };
const SETTINGS = {
  EXPORT_POLL_INTERVAL_SECONDS: '1',
  EXPORT_WORKER_INTERVAL_MS: '100',
  // Small pages: many of them at any size, so that the kill below lands mid-export (at most records'
  // default page, which large sizes run with).
  EXPORT_PAGE_SIZE: String(Math.min(1_000, Math.max(3, Math.round(PATIENTS / 8)))),
  EXPORT_LEASE_SECONDS: '2',
  // Two lanes, on two threads at once, through the kill and resume below as well.
  EXPORT_LANES: '2',
};

let r: RecordsUnderTest;
/** Where records answers now (it is restarted in the last test). */
let base: string;
const warehouse = (tenant = TENANT, clientId = 'gudang-data') =>
  r.principal(tenant, 'backend_service', { userId: clientId, clientId, scopes: ['system/*.rs'] });

async function seed(tenant: string, patients: number): Promise<void> {
  await r.owner.query(
    `insert into records.pasien (tenant_id, no_rm, nik, nama, tempat_lahir, tanggal_lahir, jenis_kelamin, alamat, kota_kabupaten, provinsi,
                                 created_by, updated_by)
     select $1, lpad((50000000 + g)::text, 8, '0'), '3273' || lpad(g::text, 12, '0'), 'Pasien ' || g, 'Bandung', date '1940-01-01' + (g * 37) % 30000,
            case when g % 2 = 0 then 'P' else 'L' end, 'Jl. Merdeka No. 1', 'Kota Bandung', 'Jawa Barat', 'synth', 'synth'
     from generate_series(1, $2::int) g`,
    [tenant, patients],
  );
  await generateClinical(r.owner, { tenantId: tenant, clinics: SYNTH_CLINICS, days: 120 });
}

/** The ids of each type in the database, by tenant (the owner connection sees every tenant). */
async function idsInDb(tenant: string): Promise<Record<string, Set<string>>> {
  const q = async (sql: string) => new Set((await r.owner.query<{ id: string }>(sql, [tenant])).rows.map((x) => x.id));
  const clinical = (jenis: string) => q(`select id::text from records.klinis where tenant_id = $1 and jenis = '${jenis}'`);
  return {
    Patient: await q('select id::text from records.pasien where tenant_id = $1'),
    Encounter: await q('select id::text from records.kunjungan where tenant_id = $1'),
    Observation: await clinical('vital'),
    Condition: await clinical('diagnosis'),
    AllergyIntolerance: await clinical('alergi'),
  };
}

async function kickOff(path: string, principal: string, headers: Record<string, string> = ASYNC) {
  return fhirCall(r, 'GET', `${base}${r.prefix}/fhir${path}`, { principal, headers });
}

/** Polls (as a client does: no sooner than Retry-After) until the manifest. */
async function manifestOf(location: string, principal: () => Promise<string>): Promise<{ body: Json; headers: Headers }> {
  let answer: Awaited<ReturnType<typeof fhirCall>> | undefined;
  await waitFor(
    'the export to finish',
    async () => {
      answer = await fhirCall(r, 'GET', location, { principal: await principal() });
      if (answer.status === 202) {
        assert.ok(answer.headers.get('x-progress'));
        await new Promise((done) => setTimeout(done, Number(answer!.headers.get('retry-after')) * 1000));
      }
      return answer.status === 200;
    },
    // Large sizes (BULK_EXPORT_PATIENTS) take their time.
    Math.max(120_000, PATIENTS * 200),
    10,
  );
  return { body: answer!.body, headers: answer!.headers };
}

/** The lines of an NDJSON body as they arrive (a large file is more than one string can hold). */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const chunk = read.value;
    const text = rest + decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let end = text.indexOf('\n'); end !== -1; from = end + 1, end = text.indexOf('\n', from)) {
      if (end > from) yield text.slice(from, end);
    }
    rest = text.slice(from);
  }
  rest += decoder.decode();
  if (rest) yield rest;
}

/**
 * The ids of every file of a manifest, by type, each line parsed and handed to `each` on the way (the
 * resources themselves are not kept: at large sizes they would not fit in memory). Each file is asked
 * for with a fresh principal, as a client asks with a fresh token: at large sizes the files take longer
 * than one lives.
 */
async function download(
  manifest: Json,
  principal: () => Promise<string>,
  each: (type: string, res: Json, line: string) => void | Promise<void> = () => {},
): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const file of manifest.output as { type: string; url: string; count: number }[]) {
    const res = await fetch(file.url.replace(/^https?:\/\/[^/]+/, base), {
      headers: { 'x-simrs-principal': await principal(), accept: 'application/fhir+ndjson' },
    });
    assert.equal(res.status, 200, file.url);
    assert.equal(res.headers.get('content-type'), 'application/fhir+ndjson');
    const ids: string[] = [];
    for await (const line of ndjsonLines(res.body!)) {
      const resource = JSON.parse(line) as Json;
      await each(file.type, resource, line);
      ids.push(resource.id as string);
    }
    out[file.type] = ids;
    assert.equal(ids.length, file.count, `${file.type}: the manifest's count`);
  }
  return out;
}

before(async () => {
  r = await startRecords('bulk', SETTINGS);
  base = r.url;
  await seed(TENANT, PATIENTS);
  await seed(OTHER, 10);
  // Freshly loaded tables have no statistics until autovacuum reaches them: at large sizes the pages
  // were planned as if they were empty (a page of visits joined every patient, seconds a page).
  await r.owner.query('analyze records.pasien, records.kunjungan, records.kunjungan_status, records.klinis');
});

after(async () => {
  await r?.stop();
});

describe('Bulk Data export: kick-off', () => {
  test('refusals are OperationOutcomes: no Prefer, unknown and unsupported parameters, another format, a staff token', async () => {
    const p = await warehouse();
    for (const [path, headers, status] of [
      ['/$export', { accept: 'application/fhir+json' }, 400],
      ['/$export?_typeFilter=Patient%3Factive%3Dtrue', ASYNC, 400],
      ['/$export?_elements=id', ASYNC, 400],
      ['/$export?_outputFormat=text%2Fcsv', ASYNC, 400],
      ['/$export?_type=Medication', ASYNC, 400],
      ['/$export?_since=yesterday', ASYNC, 400],
      ['/Patient/00000000-0000-4000-8000-000000000000/$export', ASYNC, 404],
    ] as const) {
      const res = await kickOff(path, p, headers);
      assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.resourceType, 'OperationOutcome', path);
    }
    assert.equal((await kickOff('/$export', await r.principal(TENANT, 'doctor'))).status, 403);
    const narrow = await r.principal(TENANT, 'backend_service', { clientId: 'sempit', scopes: ['system/Patient.rs'] });
    assert.equal((await kickOff('/$export?_type=Observation', narrow)).status, 403);
  });

  test('the three NDJSON spellings and handling=lenient are accepted; a second export of the hospital meanwhile is 429', async () => {
    const p = await warehouse();
    for (const format of ['application/fhir+ndjson', 'application/ndjson', 'ndjson']) {
      const res = await kickOff(`/$export?_outputFormat=${encodeURIComponent(format)}`, p);
      assert.equal(res.status, 202, format);
      const location = res.headers.get('content-location')!;
      const busy = await kickOff('/Patient/$export', p);
      assert.equal(busy.status, 429);
      assert.ok(Number(busy.headers.get('retry-after')) > 0);
      assert.equal((await fhirCall(r, 'DELETE', location, { principal: p })).status, 202);
    }
    const lenient = await kickOff('/$export?_type=Patient,Medication', p, { prefer: 'handling=lenient', accept: 'application/fhir+json' });
    assert.equal(lenient.status, 202, JSON.stringify(lenient.body));
    const location = lenient.headers.get('content-location')!;
    assert.equal((await fhirCall(r, 'DELETE', location, { principal: p })).status, 202);
    assert.equal((await fhirCall(r, 'GET', location, { principal: p })).status, 404, 'a cancelled job is gone');
    await waitFor(
      'its files to be removed',
      async () => (await r.owner.query('select count(*)::int as n from records.export_chunk')).rows[0].n === 0,
    );
  });
});

describe('Bulk Data export: a whole hospital', () => {
  let manifest: Json;
  let location: string;

  test('the manifest: transactionTime, request, requiresAccessToken, one file per type with counts, error, Expires', async () => {
    const started = await kickOff('/$export', await warehouse());
    assert.equal(started.status, 202);
    location = started.headers.get('content-location')!;
    const tooSoon = await fhirCall(r, 'GET', location, { principal: await warehouse() });
    const again = await fhirCall(r, 'GET', location, { principal: await warehouse() });
    assert.ok([tooSoon.status, again.status].includes(429), 'polled twice at once');
    assert.ok(Number((tooSoon.status === 429 ? tooSoon : again).headers.get('retry-after')) >= 1);
    const done = await manifestOf(location, () => warehouse());
    manifest = done.body;
    assert.ok(Date.parse(done.headers.get('expires')!) > Date.now());
    assert.equal(manifest.requiresAccessToken, true);
    assert.match(manifest.request as string, /\/fhir\/\$export$/);
    assert.ok(!Number.isNaN(Date.parse(manifest.transactionTime as string)));
    assert.deepEqual(manifest.error, []);
    assert.deepEqual(
      (manifest.output as Json[]).map((o) => o.type),
      TYPES,
    );
  });

  test('every line is valid FHIR R4; each file holds exactly the hospital’s ids of its type, none of the other hospital', async () => {
    const validation = fhirValidationPool();
    let files: Record<string, string[]>;
    try {
      files = await download(
        manifest,
        () => warehouse(),
        async (type, res, line) => {
          assert.equal(res.resourceType, type);
          await validation.add(line, `${type} line`);
        },
      );
    } finally {
      await validation.finish();
    }
    const mine = await idsInDb(TENANT);
    const theirs = await idsInDb(OTHER);
    for (const type of TYPES) {
      const ids = files[type]!;
      assert.equal(new Set(ids).size, ids.length, `${type}: no id twice`);
      assert.deepEqual(new Set(ids), mine[type], `${type}: the database's ids`);
      assert.ok(!ids.some((id) => theirs[type]!.has(id)), `${type}: nothing of ${OTHER}`);
    }
    const audit = await r.owner.query<{ action: string; n: number }>(
      `select action, count(*)::int as n from records.audit_log where tenant_id = $1 and action like 'bulk.%' group by action`,
      [TENANT],
    );
    const count = Object.fromEntries(audit.rows.map((a) => [a.action, a.n]));
    assert.ok(count['bulk.export']! >= 1);
    assert.equal(count['bulk.download'], TYPES.length, 'one audit row per file downloaded');
  });

  test('another client, and a client of another hospital, get 404 for the job and its files', async () => {
    const file = (manifest.output as { url: string }[])[0]!.url.replace(/^https?:\/\/[^/]+/, base);
    for (const stranger of [await warehouse(TENANT, 'klien-lain'), await warehouse(OTHER)]) {
      assert.equal((await fhirCall(r, 'GET', location, { principal: stranger })).status, 404);
      assert.equal((await fetch(file, { headers: { 'x-simrs-principal': stranger } })).status, 404);
      assert.equal((await fhirCall(r, 'DELETE', location, { principal: stranger })).status, 404);
    }
    assert.equal((await fhirCall(r, 'DELETE', location, { principal: await warehouse() })).status, 202);
  });

  test('a finished export expires: its status and files answer 404, and its files are removed', async () => {
    const started = await kickOff('/$export?_type=Condition', await warehouse());
    const status = started.headers.get('content-location')!;
    const file = (await manifestOf(status, () => warehouse())).body.output as { url: string }[];
    const job = status.split('/').at(-1)!;
    await r.owner.query(`update records.export_job set expires_at = now() - interval '1 second' where id = $1`, [job]);
    assert.equal((await fhirCall(r, 'GET', status, { principal: await warehouse() })).status, 404);
    const url = file[0]!.url.replace(/^https?:\/\/[^/]+/, base);
    assert.equal((await fetch(url, { headers: { 'x-simrs-principal': await warehouse() } })).status, 404);
    await waitFor('the expired files to be removed', async () => {
      const { rows } = await r.owner.query<{ n: number }>('select count(*)::int as n from records.export_chunk where job_id = $1', [job]);
      return rows[0]!.n === 0;
    });
  });

  test("the hospital's administrator exports everything; a second administrator does not see that job", async () => {
    const admin = () => r.principal(TENANT, 'tenant_admin');
    const started = await kickOff('/$export?_type=AllergyIntolerance', await admin());
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const location = started.headers.get('content-location')!;
    const other = await r.principal(TENANT, 'tenant_admin', { userId: 'admin-lain' });
    assert.equal((await fhirCall(r, 'GET', location, { principal: other })).status, 404);
    const files = await download((await manifestOf(location, admin)).body, admin);
    assert.equal(files.AllergyIntolerance!.length, (await idsInDb(TENANT)).AllergyIntolerance!.size);
    assert.equal((await fhirCall(r, 'DELETE', location, { principal: await admin() })).status, 202);
  });

  test('_since: only what changed after it; Patient/{id}/$export: that patient only', async () => {
    const admin = await r.principal(TENANT, 'tenant_admin');
    const since = new Date().toISOString();
    const created = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(), admin));
    const started = await kickOff(`/Patient/$export?_since=${encodeURIComponent(since)}`, await warehouse());
    const changed = await download((await manifestOf(started.headers.get('content-location')!, () => warehouse())).body, () => warehouse());
    assert.deepEqual(Object.keys(changed), ['Patient']);
    assert.deepEqual(changed.Patient, [created.id]);
    const one = await kickOff(`/Patient/${created.id}/$export?_type=Patient`, await warehouse());
    const only = await download((await manifestOf(one.headers.get('content-location')!, () => warehouse())).body, () => warehouse());
    assert.deepEqual(only.Patient, [created.id]);
  });
});

describe('Bulk Data export: records killed mid-export', () => {
  let second: ServiceProcess | undefined;
  after(async () => {
    await second?.stop();
  });

  test('a new records process resumes the job at its cursors: every id exactly once', async () => {
    const started = await kickOff('/$export', await warehouse());
    const job = started.headers.get('content-location')!.split('/').at(-1)!;
    await waitFor(
      'the export to be under way',
      async () => {
        const { rows } = await r.owner.query<{ n: number }>(`select count(*)::int as n from records.export_chunk where job_id = $1`, [job]);
        return rows[0]!.n >= 3;
      },
      60_000,
      20,
    );
    await r.proc.stop('SIGKILL');
    const { rows } = await r.owner.query<{ status: string }>('select status from records.export_job where id = $1', [job]);
    assert.equal(rows[0]!.status, 'running', 'killed before it finished');
    const port = await freePort();
    second = startService('records-2', 'services/records', {
      HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      DATABASE_URL: r.appUrl,
      MIGRATION_DATABASE_URL: r.ownerUrl,
      PRINCIPAL_SECRET: r.secret,
      LOG_LEVEL: 'warn',
      ...SETTINGS,
    });
    base = `http://127.0.0.1:${port}`;
    await waitForReady(`${base}/readyz`, 60_000).catch((err: Error) => {
      throw new Error(`records did not start again: ${err.message}\n${second!.lines.join('\n')}`, { cause: err });
    });
    const location = `${base}${r.prefix}/fhir/$export-status/${job}`;
    const files = await download((await manifestOf(location, () => warehouse())).body, () => warehouse());
    const mine = await idsInDb(TENANT);
    for (const type of TYPES) {
      const ids = files[type]!;
      assert.equal(new Set(ids).size, ids.length, `${type}: no line twice`);
      assert.deepEqual(new Set(ids), mine[type], `${type}: none missing`);
    }
  });
});
