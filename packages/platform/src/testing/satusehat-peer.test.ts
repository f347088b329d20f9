// The SATUSEHAT stand-in answers as the platform's documentation shows: the token endpoint's shape,
// conditional create, the duplicate and validation refusals, the organization check, the faults.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSatusehatPeer, sysIds } from './satusehat-peer.ts';
import type { SatusehatPeer } from './satusehat-peer.ts';

const ORG = '100011961';
let peer: SatusehatPeer;
before(async () => {
  peer = await startSatusehatPeer();
  peer.addTenant({ organizationId: ORG, clientId: 'client-a', clientSecret: 'secret-a' });
  peer.addTenant({ organizationId: '200022', clientId: 'client-b', clientSecret: 'secret-b' });
});
after(() => peer.stop());

async function tokenFor(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${peer.url}/oauth2/v1/accesstoken?grant_type=client_credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret }),
  });
}

const location = (org: string, value: string) => ({
  resourceType: 'Location',
  identifier: [{ system: sysIds('location', org), value }],
  name: 'Poli Umum',
  status: 'active',
  managingOrganization: { reference: `Organization/${org}` },
});

async function post(token: string, body: unknown, ifNoneExist?: string): Promise<Response> {
  return fetch(`${peer.url}/fhir-r4/v1/${(body as { resourceType: string }).resourceType}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(ifNoneExist ? { 'if-none-exist': ifNoneExist } : {}),
    },
    body: JSON.stringify(body),
  });
}

test('the token endpoint answers BearerToken with expires_in as a string, and refuses wrong credentials', async () => {
  const good = await tokenFor('client-a', 'secret-a');
  assert.equal(good.status, 200);
  const body = (await good.json()) as Record<string, unknown>;
  assert.equal(body.token_type, 'BearerToken');
  assert.equal(typeof body.expires_in, 'string');
  assert.equal(typeof body.access_token, 'string');
  assert.equal((await tokenFor('client-a', 'wrong')).status, 401);
});

test('conditional create stores once; a plain resend is refused as a duplicate; bad codes and other organizations are refused', async () => {
  const token = ((await (await tokenFor('client-a', 'secret-a')).json()) as { access_token: string }).access_token;
  const first = await post(token, location(ORG, 'UMUM'), `identifier=${sysIds('location', ORG)}|UMUM`);
  assert.equal(first.status, 201);
  const again = await post(token, location(ORG, 'UMUM'), `identifier=${sysIds('location', ORG)}|UMUM`);
  assert.equal(again.status, 200);
  assert.equal(((await again.json()) as { id: string }).id, ((await first.json()) as { id: string }).id);
  const duplicate = await post(token, location(ORG, 'UMUM'));
  assert.equal(duplicate.status, 400);
  assert.equal(((await duplicate.json()) as { issue: { code: string }[] }).issue[0]!.code, 'duplicate');
  const bogus = {
    resourceType: 'Encounter',
    status: 'bogus',
    class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' },
  };
  const refused = await post(token, bogus);
  assert.equal(refused.status, 400);
  assert.match(JSON.stringify(await refused.json()), /Encounter.status: 'bogus'/);
  assert.equal((await post(token, { ...location(ORG, 'Y'), unknownElement: 1 })).status, 400);
  assert.equal((await post(token, location('200022', 'UMUM'))).status, 403);
  assert.equal((await post('not-a-token', location(ORG, 'Z'))).status, 401);
  assert.equal(peer.counters.creates.Location, 1);
});

test('injected faults: 500, 429 with Retry-After, and a stored resource whose answer is withheld', async () => {
  const token = ((await (await tokenFor('client-a', 'secret-a')).json()) as { access_token: string }).access_token;
  peer.inject('server-error');
  assert.equal((await post(token, location(ORG, 'F1'))).status, 500);
  peer.inject('rate-limit');
  const limited = await post(token, location(ORG, 'F2'));
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  peer.inject('timeout-after-store');
  await assert.rejects(() =>
    fetch(`${peer.url}/fhir-r4/v1/Location`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(location(ORG, 'F3')),
      signal: AbortSignal.timeout(300),
    }),
  );
  assert.equal(peer.withheld, 1);
  assert.equal((await peer.resources('Location')).filter((l) => l.identifier[0].value === 'F3').length, 1);
});
