// SATUSEHAT sending against the stand-in peer: a finished visit arrives as SATUSEHAT takes it (Encounter,
// Condition, Observation, +07:00), once, with one token; amendments go as updates; a visit whose
// patient the platform does not know is parked as incomplete and sent after the fix; a refusal is
// kept in the platform's words and resent; 5xx and 429 are retried; two hospitals each use their own
// credentials; the admin's procedures never answer the secret.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '@simrs/platform/testing';
import { startSatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import type { SatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import { dataOf, hospital, outboxOf, satusehatEnv, startRecords } from '../testing/index.ts';
import type { Hospital, RecordsUnderTest } from '../testing/index.ts';

let peer: SatusehatPeer;
let r: RecordsUnderTest;
let a: Hospital;
let b: Hospital;

before(async () => {
  peer = await startSatusehatPeer();
  r = await startRecords('satusehat', satusehatEnv(peer));
  a = await hospital(r, peer, 'rs-a');
  b = await hospital(r, peer, 'rs-b');
});
after(async () => {
  await r?.stop();
  await peer?.stop();
});

const sent = (visit: string) => waitFor(`visit ${visit} sent`, async () => (await outboxOf(r, visit))?.state === 'sent', 20_000);
/** The platform's Encounters of a visit: by its identifier, the hospital's system and the visit number. */
const encounterOf = async (h: Hospital, noKunjungan: string) =>
  (await peer.resources('Encounter')).filter(
    (e) => e.identifier[0].system === `http://sys-ids.kemkes.go.id/encounter/${h.organizationId}` && e.identifier[0].value === noKunjungan,
  );

test('a finished visit reaches the platform once, as SATUSEHAT takes it, and an amendment goes as an update', async () => {
  const tokensBefore = peer.counters.tokenRequests;
  const v = await a.finishedVisit();
  await sent(v.visit);
  const found = await encounterOf(a, v.noKunjungan);
  assert.equal(found.length, 1);
  const encounter = found[0]!;
  assert.equal(encounter.status, 'finished');
  assert.equal(encounter.class.code, 'AMB');
  assert.equal(encounter.identifier[0].system, `http://sys-ids.kemkes.go.id/encounter/${a.organizationId}`);
  assert.equal(encounter.serviceProvider.reference, `Organization/${a.organizationId}`);
  assert.match(encounter.period.start, /\+07:00$/);
  assert.deepEqual(
    encounter.statusHistory.map((h: { status: string }) => h.status),
    ['planned', 'arrived', 'in-progress', 'finished'],
  );
  assert.equal(encounter.diagnosis.length, 1);
  const conditions = (await peer.resources('Condition')).filter((c) => c.encounter.reference === `Encounter/${encounter.id}`);
  assert.equal(conditions.length, 1);
  assert.equal(conditions[0]!.code.coding[0].code, 'J06.9');
  const observations = (await peer.resources('Observation')).filter((o) => o.encounter.reference === `Encounter/${encounter.id}`);
  assert.equal(observations.length, 1);
  assert.match(observations[0]!.effectiveDateTime, /\+07:00$/);
  assert.ok(peer.counters.tokenRequests - tokensBefore <= 1, 'one token for the hospital');
  const { rows } = await r.owner.query(
    "select kind from records.satusehat_ihs where local_id = $1 and kind = 'encounter' and remote_id = $2",
    [v.visit, encounter.id],
  );
  assert.equal(rows.length, 1, 'the Encounter id is kept');

  // A vital sign recorded after sending queues the visit again; it goes as a new Observation, the Encounter updated in place.
  dataOf(
    await r.mutate(
      'vital.record',
      { kunjunganId: v.visit, measurements: [{ key: 'nadi', value: 80, unit: '/min' }], reason: 'diukur ulang sebelum pulang' },
      a.doctor,
    ),
  );
  await waitFor('the amendment sent', async () => {
    const { rows: sends } = await r.owner.query(
      "select state from records.satusehat_outbox where kunjungan_id = $1 and reason = 'amended'",
      [v.visit],
    );
    return sends[0]?.state === 'sent';
  });
  assert.equal((await encounterOf(a, v.noKunjungan)).length, 1);
  assert.equal((await peer.resources('Observation')).filter((o) => o.encounter.reference === `Encounter/${encounter.id}`).length, 2);
  const state = dataOf<{ state: string }>(await r.query('satusehat.status', { kunjunganId: v.visit }, a.doctor));
  assert.equal(state.state, 'sent');
});

test('a patient the platform does not know is parked as incomplete with the reason, and sent after the fix', async () => {
  const v = await a.finishedVisit({ knownToPlatform: false });
  const parked = await waitFor('incomplete', async () =>
    (await outboxOf(r, v.visit))?.state === 'incomplete' ? outboxOf(r, v.visit) : undefined,
  );
  assert.match(String(parked!.last_error), /not known to SATUSEHAT by their NIK/);
  const listed = dataOf<{ kunjunganId: string; lastError: string }[]>(await r.query('satusehat.list', { state: 'incomplete' }, a.admin));
  assert.ok(listed.some((row) => row.kunjunganId === v.visit && /NIK/.test(row.lastError)));
  const { rows } = await r.owner.query('select p.nik, p.nama from records.pasien p where p.id = $1', [v.pasienId]);
  await peer.addPatient(rows[0].nik, rows[0].nama);
  dataOf(await r.mutate('satusehat.resend', { kunjunganId: v.visit }, a.admin));
  await sent(v.visit);
});

test("a refusal is kept in the platform's words; 5xx and 429 are retried; resend after the fix", async () => {
  peer.inject('duplicate', { resourceType: 'Encounter' });
  const refused = await a.finishedVisit();
  const failed = await waitFor('failed', async () =>
    (await outboxOf(r, refused.visit))?.state === 'failed' ? outboxOf(r, refused.visit) : undefined,
  );
  assert.match(String(failed!.last_error), /Encounter: Found duplicate resource/);
  dataOf(await r.mutate('satusehat.resend', { kunjunganId: refused.visit }, a.admin));
  await sent(refused.visit);

  peer.inject('server-error', { resourceType: 'Encounter', times: 2 });
  peer.inject('rate-limit', { resourceType: 'Encounter' });
  const retried = await a.finishedVisit();
  await sent(retried.visit);
  assert.ok((await outboxOf(r, retried.visit))!.attempts >= 3);
  assert.equal((await encounterOf(a, retried.noKunjungan)).length, 1);
});

test("two hospitals: each visit goes with its own hospital's token, and no answer carries the secret", async () => {
  const [va, vb] = [await a.finishedVisit(), await b.finishedVisit()];
  await sent(va.visit);
  await sent(vb.visit);
  const [ea] = await encounterOf(a, va.noKunjungan);
  const [eb] = await encounterOf(b, vb.noKunjungan);
  assert.equal(ea!.serviceProvider.reference, `Organization/${a.organizationId}`);
  assert.equal(eb!.serviceProvider.reference, `Organization/${b.organizationId}`);
  // The peer refuses (403) any resource naming an organization other than its token's: none was refused.
  assert.deepEqual(
    peer.log.filter((l) => l.status === 403),
    [],
  );
  const byOrg = (id: string) => peer.log.filter((l) => l.method === 'PUT' && l.path === `/Encounter/${id}`).map((l) => l.organizationId);
  assert.deepEqual([...new Set(byOrg(ea!.id))], [a.organizationId]);
  assert.deepEqual([...new Set(byOrg(eb!.id))], [b.organizationId]);
  const shown = await r.query('satusehat.connection', undefined, a.admin);
  assert.equal(shown.status, 200);
  assert.doesNotMatch(JSON.stringify(shown.body), /secret-/);
  assert.equal((await r.query('satusehat.connection', undefined, await r.principal(a.tenant, 'doctor'))).status, 403);
});
