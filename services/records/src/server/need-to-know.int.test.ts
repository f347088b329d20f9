// Need-to-know for clinical content: the treatment relationship (a visit at one of the clinician's
// clinics, open or finished within the hospital's window), break-the-glass (a written reason, a bounded
// time, flagged in the audit trail, listed for auditors), and the roles that never reach it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { procedureTypes } from '../shims/index.ts';
import {
  assertEnvelope,
  chart,
  clinicalCalls,
  clinicalInput,
  countRows,
  dataOf,
  KINDS,
  loadCodes,
  newPasien,
  restCaller,
  startRecords,
} from '../testing/index.ts';
import type { Chart, RecordsUnderTest, Reply } from '../testing/index.ts';
import { appRouter } from './router.ts';

const served = procedureTypes(appRouter);

describe('need-to-know', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let doctor: string;
  let stranger: string;
  let poliId: string;
  let n = 500;
  let rest: Awaited<ReturnType<typeof restCaller>>;
  /** Every clinical read of `c`: each kind's list and history, and the timeline. */
  const reads = (c: Chart) => [
    ...KINDS.flatMap((k) => [`${k}.list`, `${k}.history`]).map((name) => [name, clinicalInput(name as never, c)] as const),
    ['klinis.riwayat', { pasienId: c.pasienId }] as const,
  ];
  /** A call on both surfaces: tRPC, then REST. */
  const both = async (name: string, input: Record<string, unknown>, who: string): Promise<Reply[]> => {
    const kind = served.get(name);
    return [await (kind === 'query' ? r.query(name, input, who) : r.mutate(name, input, who)), await rest(name, input, who)];
  };
  const patient = async () => dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(++n), admin)).id;
  const visitOf = async (pasienId: string) => dataOf<{ id: string }>(await r.mutate('kunjungan.register', { pasienId, poliId }, admin)).id;
  const history = (pasienId: string, who: string) => r.query('klinis.riwayat', { pasienId }, who);
  const auditRows = async (action: string) =>
    (
      await r.owner.query<{
        actor_user_id: string;
        break_glass: boolean;
        purpose: string | null;
        pasien_ids: string[];
        details: Record<string, unknown>;
      }>('select actor_user_id, break_glass, purpose, pasien_ids::text[], details from records.audit_log where action = $1 order by id', [
        action,
      ])
    ).rows;

  before(async () => {
    r = await startRecords('needtoknow');
    admin = await r.principal('rs-demo', 'tenant_admin');
    doctor = await r.principal('rs-demo', 'doctor', { userId: 'dr-ani' });
    stranger = await r.principal('rs-demo', 'doctor', { userId: 'dr-budi' });
    poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    dataOf(await r.mutate('poli.assign', { poliId, userId: 'dr-ani' }, admin));
    await loadCodes(r);
    rest = await restCaller(r);
  });
  after(async () => {
    await r?.stop();
  });

  test('an open visit at the clinician’s clinic is a treatment relationship; another clinician is refused', async () => {
    const pasienId = await patient();
    assert.match(assertEnvelope(await history(pasienId, doctor), 403, 'FORBIDDEN').message, /no treatment relationship/);
    const visit = await visitOf(pasienId);
    assert.equal(dataOf<{ items: unknown[] }>(await history(pasienId, doctor)).items.length, 1);
    assertEnvelope(await history(pasienId, stranger), 403, 'FORBIDDEN');
    const rows = await auditRows('klinis.riwayat');
    assert.deepEqual(
      rows.map((x) => [x.actor_user_id, x.purpose, x.break_glass, x.pasien_ids]),
      [['dr-ani', 'treatment', false, [pasienId]]],
      'refusals leave no row; the access names its purpose',
    );
    // Starting the visit is need-to-know too: the assigned doctor may, the other may not.
    await r.mutate('kunjungan.arrive', { id: visit }, await r.principal('rs-demo', 'registration_clerk'));
    assertEnvelope(await r.mutate('kunjungan.start', { id: visit }, stranger), 403, 'FORBIDDEN');
    assert.equal(dataOf<{ status: string }>(await r.mutate('kunjungan.start', { id: visit }, doctor)).status, 'in-progress');
  });

  test('the relationship ends with the window after a finished visit, and the window is the hospital’s setting', async () => {
    const pasienId = await patient();
    const visit = await visitOf(pasienId);
    await r.owner.query("update records.kunjungan set status = 'finished', ended_at = now() - interval '29 days' where id = $1", [visit]);
    dataOf(await history(pasienId, doctor));
    await r.owner.query("update records.kunjungan set ended_at = now() - interval '31 days' where id = $1", [visit]);
    assertEnvelope(await history(pasienId, doctor), 403, 'FORBIDDEN');
    dataOf(await r.mutate('pengaturan.update', { relationshipDays: 45 }, admin));
    dataOf(await history(pasienId, doctor));
    dataOf(await r.mutate('pengaturan.update', { relationshipDays: 30 }, admin));
    await r.owner.query("update records.kunjungan set status = 'cancelled', cancel_reason = 'batal', ended_at = now() where id = $1", [
      visit,
    ]);
    assertEnvelope(await history(pasienId, doctor), 403, 'FORBIDDEN');
  });

  test('unassigning a clinician ends their relationships', async () => {
    const pasienId = await patient();
    await visitOf(pasienId);
    const nurse = await r.principal('rs-demo', 'nurse', { userId: 'ns-citra' });
    dataOf(await r.mutate('poli.assign', { poliId, userId: 'ns-citra' }, admin));
    dataOf(await history(pasienId, nurse));
    dataOf(await r.mutate('poli.unassign', { poliId, userId: 'ns-citra' }, admin));
    assertEnvelope(await history(pasienId, nurse), 403, 'FORBIDDEN');
  });

  test('break-the-glass: refused without a reason, then opens the record for a bounded time, flagged', async () => {
    const pasienId = await patient();
    const noReason = assertEnvelope(await r.mutate('btg.open', { pasienId }, stranger), 400, 'BAD_REQUEST');
    assert.ok(noReason.data.fieldErrors?.reason);
    const short = assertEnvelope(await r.mutate('btg.open', { pasienId, reason: 'urgent' }, stranger), 400, 'BAD_REQUEST');
    assert.match(short.data.fieldErrors?.reason?.[0] ?? '', /at least 10/);
    assertEnvelope(await history(pasienId, stranger), 403, 'FORBIDDEN');
    const grant = dataOf<{ id: string; expiresAt: string; openedAt: string; active: boolean }>(
      await r.mutate('btg.open', { pasienId, reason: 'unconscious patient in the emergency room' }, stranger),
    );
    assert.equal(grant.active, true);
    assert.equal(Date.parse(grant.expiresAt) - Date.parse(grant.openedAt), 60 * 60_000);
    dataOf(await history(pasienId, stranger));
    const opened = (await auditRows('btg.open')).at(-1)!;
    assert.deepEqual(
      [opened.actor_user_id, opened.break_glass, opened.purpose, opened.pasien_ids],
      ['dr-budi', true, 'break-the-glass', [pasienId]],
    );
    assert.equal(opened.details.reason, 'unconscious patient in the emergency room');
    const read = (await auditRows('klinis.riwayat')).at(-1)!;
    assert.deepEqual([read.actor_user_id, read.break_glass, read.purpose], ['dr-budi', true, 'break-the-glass']);
    // The grant is another clinician's business only: dr-ani still needs her own relationship.
    assertEnvelope(await history(pasienId, doctor), 403, 'FORBIDDEN');
  });

  test('an expired grant opens nothing; the auditor lists every grant and the flagged accesses', async () => {
    const pasienId = await patient();
    await r.owner.query(
      `insert into records.btg_grant (tenant_id, user_id, user_role, pasien_id, reason, opened_at, expires_at)
       values ('rs-demo', 'dr-budi', 'doctor', $1, 'an old emergency long ago', now() - interval '2 hours', now() - interval '1 hour')`,
      [pasienId],
    );
    assertEnvelope(await history(pasienId, stranger), 403, 'FORBIDDEN');
    const auditor = await r.principal('rs-demo', 'auditor');
    const grants = dataOf<{ userId: string; pasienId: string; reason: string; active: boolean }[]>(
      await r.query('btg.list', { userId: 'dr-budi' }, auditor),
    );
    assert.deepEqual(
      grants.map((g) => [g.pasienId === pasienId, g.active]),
      [
        [false, true],
        [true, false],
      ],
      'newest opening first',
    );
    assert.equal(grants.length, 2);
    const flagged = dataOf<{ items: { action: string; breakGlass: boolean }[] }>(await r.query('audit.list', { breakGlass: true }, admin));
    assert.ok(flagged.items.length >= 2 && flagged.items.every((e) => e.breakGlass));
    assertEnvelope(await r.query('btg.list', {}, admin), 403, 'FORBIDDEN');
    assert.deepEqual(dataOf(await r.query('btg.list', {}, await r.principal('rs-lain', 'auditor'))), []);
  });

  test('clerks, administrators and auditors never reach clinical content; other hospitals’ clinicians see 404', async () => {
    const pasienId = await patient();
    await visitOf(pasienId);
    for (const role of ['registration_clerk', 'tenant_admin', 'auditor']) {
      assertEnvelope(await history(pasienId, await r.principal('rs-demo', role)), 403, 'FORBIDDEN');
      assertEnvelope(
        await r.mutate('btg.open', { pasienId, reason: 'curious about this patient' }, await r.principal('rs-demo', role)),
        403,
      );
    }
    const lain = await r.principal('rs-lain', 'doctor', { userId: 'dr-ani' });
    assertEnvelope(await history(pasienId, lain), 404, 'NOT_FOUND');
    assertEnvelope(await r.mutate('btg.open', { pasienId, reason: 'another hospital trying' }, lain), 404, 'NOT_FOUND');
  });

  test('clerks, administrators and auditors get no vital sign, diagnosis, allergy or note on tRPC or REST', async () => {
    const c = await chart(r, ++n, poliId, doctor);
    for (const role of ['registration_clerk', 'tenant_admin', 'auditor']) {
      // Working at the clinic changes nothing: the role holds no clinical permission.
      dataOf(await r.mutate('poli.assign', { poliId, userId: `${role}@rs-demo` }, admin));
      const who = await r.principal('rs-demo', role);
      for (const [name, input] of clinicalCalls(c, (x) => served.has(x) && !x.startsWith('kunjungan.')))
        for (const reply of await both(name, input, who)) {
          const e = assertEnvelope(reply, 403, 'FORBIDDEN');
          assert.doesNotMatch(JSON.stringify(reply.body), /Amoksisilin|Batuk|J06\.9|mm\[Hg\]/, `${role} ${name}`);
          assert.match(e.message, /may not|scope/);
        }
    }
  });

  test('a doctor without a treatment relationship gets 403 on every clinical read and write, and nothing is written', async () => {
    const c = await chart(r, ++n, poliId, doctor);
    const before = await countRows(r.owner, 'records.klinis_versi');
    for (const [name, input] of clinicalCalls(c, (x) => served.has(x)))
      for (const reply of await both(name, input, stranger))
        assert.match(assertEnvelope(reply, 403, 'FORBIDDEN').message, /no treatment relationship/, name);
    assert.equal(await countRows(r.owner, 'records.klinis_versi'), before, 'no entry and no version written');
    assert.equal(await countRows(r.owner, 'records.audit_log', 'actor_user_id = $1 and $2 = any(pasien_ids)', ['dr-budi', c.pasienId]), 0);
  });

  test('break-the-glass opens the entries with a reason, flagged in the audit trail, until it expires', async () => {
    const c = await chart(r, ++n, poliId, doctor);
    const grant = dataOf<{ id: string }>(
      await r.mutate('btg.open', { pasienId: c.pasienId, reason: 'patient collapsed in the waiting room' }, stranger),
    );
    for (const [name, input] of reads(c)) for (const reply of await both(name, input, stranger)) assert.equal(reply.status, 200, name);
    const timeline = dataOf<{ items: { vital: unknown[]; catatan: unknown }[] }>(
      await r.query('klinis.riwayat', { pasienId: c.pasienId }, stranger),
    );
    assert.equal(timeline.items[0]!.vital.length, 1);
    const audited = await r.owner.query<{ break_glass: boolean; purpose: string; n: number }>(
      `select break_glass, purpose, count(*)::int as n from records.audit_log
       where actor_user_id = 'dr-budi' and $1 = any(pasien_ids) and action in ('klinis.read', 'klinis.riwayat') group by 1, 2`,
      [c.pasienId],
    );
    assert.deepEqual(audited.rows, [{ break_glass: true, purpose: 'break-the-glass', n: reads(c).length * 2 + 1 }]);
    // The grant ends: its rows refuse every change, so the owner moves the expiry with triggers off.
    await r.owner.query('begin');
    await r.owner.query('set local session_replication_role = replica');
    await r.owner.query(
      "update records.btg_grant set opened_at = opened_at - interval '2 hours', expires_at = now() - interval '1 second' where id = $1",
      [grant.id],
    );
    await r.owner.query('commit');
    for (const [name, input] of reads(c)) for (const reply of await both(name, input, stranger)) assertEnvelope(reply, 403, 'FORBIDDEN');
  });

  test('vital signs, checked and written in one statement, are refused without access and flagged as the check found', async () => {
    const c = await chart(r, ++n, poliId, doctor);
    const vitals = { kunjunganId: c.visit, measurements: [{ key: 'nadi', value: 88, unit: '/min' }] };
    assertEnvelope(await r.mutate('vital.record', vitals, stranger), 403, 'FORBIDDEN');
    assertEnvelope(await r.mutate('vital.record', { ...vitals, kunjunganId: randomUUID() }, doctor), 404, 'NOT_FOUND');
    dataOf(await r.mutate('btg.open', { pasienId: c.pasienId, reason: 'covering the clinic while its doctor is away' }, stranger));
    dataOf(await r.mutate('vital.record', vitals, stranger));
    const written = await r.owner.query<{ actor_user_id: string; break_glass: boolean; purpose: string }>(
      `select actor_user_id, break_glass, purpose from records.audit_log
       where action = 'klinis.record' and details->>'jenis' = 'vital' and $1 = any(pasien_ids) order by id`,
      [c.pasienId],
    );
    assert.deepEqual(
      written.rows.map((x) => [x.actor_user_id, x.break_glass, x.purpose]),
      [
        ['dr-ani', false, 'treatment'],
        ['dr-budi', true, 'break-the-glass'],
      ],
    );
  });

  test('a clinical list that finds nothing is audited against its patient all the same', async () => {
    const pasienId = await patient();
    const visit = await visitOf(pasienId);
    assert.deepEqual(dataOf(await r.query('alergi.list', { pasienId }, doctor)), []);
    assert.deepEqual(dataOf(await r.query('vital.list', { kunjunganId: visit }, doctor)), []);
    const rows = (await auditRows('klinis.read')).filter((x) => x.pasien_ids.includes(pasienId));
    assert.deepEqual(
      rows.map((x) => [x.actor_user_id, x.details.jenis, x.pasien_ids]),
      [
        ['dr-ani', 'alergi', [pasienId]],
        ['dr-ani', 'vital', [pasienId]],
      ],
      '"no allergy recorded" is clinical content too: the auditor finds the read under the patient',
    );
  });

  test('the entries close with the relationship: the window after a finished visit', async () => {
    const c = await chart(r, ++n, poliId, doctor);
    dataOf(await r.mutate('kunjungan.finish', { id: c.visit }, doctor));
    for (const [name, input] of reads(c)) for (const reply of await both(name, input, doctor)) assert.equal(reply.status, 200, name);
    await r.owner.query("update records.kunjungan set ended_at = now() - interval '31 days' where id = $1", [c.visit]);
    for (const [name, input] of clinicalCalls(c, (x) => served.has(x) && !x.startsWith('kunjungan.')))
      for (const reply of await both(
        name,
        { ...input, ...(name.endsWith('.record') && input.kunjunganId ? { reason: 'late correction' } : {}) },
        doctor,
      ))
        assertEnvelope(reply, 403, 'FORBIDDEN');
  });
});
