// SATUSEHAT sending under faults, with worker processes on one outbox (the records process under test
// serves the API only): a worker killed after the platform stored the Encounter but before it recorded
// the answer, then another started: exactly one Encounter. Two workers at once: each visit sent once.
// The platform down for a while: everything sent after it returns, without a storm of token requests
// (SATUSEHAT_TOKEN_RETRY_MS, a minute in production, is a second here: the same rule, shorter).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { startSatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import type { SatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import { hospital, outboxOf, satusehatEnv, startRecords, startWorker } from '../testing/index.ts';
import type { Hospital, RecordsUnderTest } from '../testing/index.ts';

let peer: SatusehatPeer;
let r: RecordsUnderTest;
const workers: ServiceProcess[] = [];

before(async () => {
  peer = await startSatusehatPeer();
  r = await startRecords('satusehat_faults', satusehatEnv(peer, { SATUSEHAT_WORKER: 'false' }));
});
after(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGKILL')));
  await r?.stop();
  await peer?.stop();
});

async function worker(extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const w = await startWorker(r, peer, extra);
  workers.push(w);
  return w;
}

const allSent = (visits: { visit: string }[], timeoutMs = 30_000) =>
  waitFor(
    'every visit sent',
    async () => (await Promise.all(visits.map((v) => outboxOf(r, v.visit)))).every((row) => row?.state === 'sent'),
    timeoutMs,
  );

const encountersOf = async (h: Hospital) =>
  (await peer.resources('Encounter')).filter((e) => e.identifier[0].system === `http://sys-ids.kemkes.go.id/encounter/${h.organizationId}`);
const encounterPosts = (h: Hospital) =>
  peer.log.filter((l) => l.method === 'POST' && l.path === '/Encounter' && l.organizationId === h.organizationId);

test('a worker killed after the platform stored the Encounter, before it recorded the answer: after a restart, exactly one Encounter', async () => {
  const h = await hospital(r, peer, 'rs-kill');
  peer.inject('timeout-after-store', { resourceType: 'Encounter' });
  // A long request timeout: the worker is still waiting for the answer when it is killed.
  const first = await worker({ SATUSEHAT_TIMEOUT_MS: '20000' });
  const v = await h.finishedVisit();
  await waitFor('the platform to store the Encounter and withhold its answer', async () => peer.withheld === 1);
  await first.stop('SIGKILL');
  assert.equal((await outboxOf(r, v.visit))!.state, 'queued', 'the answer was never recorded');
  const second = await worker();
  await allSent([v]);
  await second.stop();
  assert.equal((await encountersOf(h)).length, 1);
  assert.equal(encounterPosts(h).length, 2, 'sent twice, stored once: the second was a conditional create');
});

test('two workers on one outbox: each visit is sent once', async () => {
  const h = await hospital(r, peer, 'rs-two');
  const visits: Awaited<ReturnType<Hospital['finishedVisit']>>[] = [];
  for (let i = 0; i < 8; i++) visits.push(await h.finishedVisit());
  const pair = await Promise.all([worker(), worker()]);
  await allSent(visits);
  await Promise.all(pair.map((w) => w.stop()));
  assert.equal((await encountersOf(h)).length, visits.length);
  assert.equal(encounterPosts(h).length, visits.length, 'no visit was sent by both');
});

test('the platform down for a while: everything is sent after it returns, with at most one token request per retry interval', async () => {
  const h = await hospital(r, peer, 'rs-down');
  peer.setDown(true);
  const visits: Awaited<ReturnType<Hospital['finishedVisit']>>[] = [];
  for (let i = 0; i < 4; i++) visits.push(await h.finishedVisit());
  const tokensBefore = peer.counters.tokenRequests;
  const downSince = Date.now();
  const w = await worker();
  // Down until every visit has been tried several times (a few token retry intervals).
  await waitFor(
    'several attempts while down',
    async () => (await Promise.all(visits.map((v) => outboxOf(r, v.visit)))).every((row) => (row?.attempts ?? 0) >= 4),
    30_000,
  );
  const downFor = Date.now() - downSince;
  const tokensWhileDown = peer.counters.tokenRequests - tokensBefore;
  peer.setDown(false);
  await allSent(visits);
  await w.stop();
  assert.ok(tokensWhileDown >= 1, 'it did ask');
  assert.ok(tokensWhileDown <= Math.ceil(downFor / 1_000) + 1, `${tokensWhileDown} token requests in ${downFor} ms down`);
  assert.ok(peer.counters.tokenRequests - tokensBefore <= tokensWhileDown + 2, 'one token after the return, not one per visit');
  assert.equal((await encountersOf(h)).length, visits.length);
});
