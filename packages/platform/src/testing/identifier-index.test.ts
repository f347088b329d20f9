// The repository with an index by identifier answers as the library's MemoryRepository does: the same
// writes on both, then the same searches and conditional creates, compared.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OperationOutcomeError, parseSearchRequest } from '@medplum/core';
import { MemoryRepository } from '@medplum/fhir-router';
import type { Resource } from '@medplum/fhirtypes';
import { IdentifierIndexedRepository } from './identifier-index.ts';
import { indexDefinitions } from './satusehat-rules.ts';

indexDefinitions(); // the library's search parameters, without which no search matches anything

const SYS = 'http://sys-ids.kemkes.go.id/encounter/100011961';
const encounter = (value: string, extra: Record<string, unknown> = {}) =>
  ({ resourceType: 'Encounter', status: 'arrived', class: { code: 'AMB' }, identifier: [{ system: SYS, value }], ...extra }) as Resource;

/** Both repositories with the same resources under the same ids. */
async function both(): Promise<[MemoryRepository, IdentifierIndexedRepository]> {
  const plain = new MemoryRepository();
  const indexed = new IdentifierIndexedRepository();
  for (const repo of [plain, indexed]) {
    await repo.createResource({ ...encounter('A-1'), id: 'e1' } as Resource);
    await repo.createResource({ ...encounter('a-2', { status: 'finished' }), id: 'e2' } as Resource);
    await repo.createResource({ ...encounter('A-3'), id: 'e3' } as Resource);
    await repo.createResource({ ...encounter('SAME'), id: 'e4' } as Resource);
    await repo.createResource({ ...encounter('SAME'), id: 'e5' } as Resource);
    await repo.createResource({ resourceType: 'Patient', id: 'p1', identifier: [{ system: SYS, value: 'A-1' }] } as Resource);
    // Its `identifier` search reads masterIdentifier too: the index leaves such a type to the library.
    await repo.createResource({
      resourceType: 'DocumentReference',
      id: 'd1',
      masterIdentifier: { system: SYS, value: 'DOC-1' },
    } as Resource);
    // An update that moves e3 to another identifier, and a deletion.
    await repo.updateResource({ ...encounter('B-3'), id: 'e3' } as Resource);
    await repo.createResource({ ...encounter('GONE'), id: 'e6' } as Resource);
    await repo.deleteResource('Encounter', 'e6');
  }
  return [plain, indexed];
}

const ids = (bundle: { entry?: Array<{ resource?: { id?: string } }>; total?: number }) => ({
  ids: (bundle.entry ?? []).map((e) => e.resource?.id).sort(),
  total: bundle.total,
});

test('searches answer as the in-memory repository does, through the index or not', async () => {
  const [plain, indexed] = await both();
  const searches = [
    `Encounter?identifier=${SYS}|A-1`,
    `Encounter?identifier=${SYS.toUpperCase()}|a-1`, // token search is case-insensitive
    `Encounter?identifier=${SYS}|A-2`,
    `Encounter?identifier=${SYS}|A-3`, // moved away by the update
    `Encounter?identifier=${SYS}|B-3`,
    `Encounter?identifier=${SYS}|GONE`, // deleted
    `Encounter?identifier=${SYS}|SAME`,
    `Encounter?identifier=${SYS}|SAME&_count=1`,
    `Encounter?identifier=${SYS}|NONE`,
    `Patient?identifier=${SYS}|A-1`,
    `DocumentReference?identifier=${SYS}|DOC-1`,
    'Encounter?identifier=A-1', // value only: not indexed, the library scans
    `Encounter?identifier=${SYS}|`, // system only: not indexed
    `Encounter?identifier=${SYS}|A-1,${SYS}|B-3`, // an OR list: not indexed
    `Encounter?identifier=${SYS}|A-2&status=finished`, // a second filter: not indexed
    `Encounter?identifier=${SYS}|A-1&status=finished`,
  ];
  const answers: Record<string, ReturnType<typeof ids>> = {};
  for (const url of searches) {
    answers[url] = ids(await indexed.search(parseSearchRequest(url)));
    assert.deepEqual(answers[url], ids(await plain.search(parseSearchRequest(url))), url);
  }
  // Not the same answer by accident (nothing found by either):
  assert.deepEqual(answers[searches[1]!], { ids: ['e1'], total: 1 });
  assert.deepEqual(answers[searches[4]!], { ids: ['e3'], total: 1 });
  assert.deepEqual(answers[searches[7]!], { ids: ['e4'], total: 2 });
  assert.deepEqual(answers[searches[10]!], { ids: ['d1'], total: 1 });
});

test('conditional create finds what is stored, creates what is not, and refuses more than one match', async () => {
  const [plain, indexed] = await both();
  for (const repo of [plain, indexed]) {
    const found = await repo.conditionalCreate(encounter('a-1'), parseSearchRequest(`Encounter?identifier=${SYS}|A-1`));
    assert.equal(found.resource.id, 'e1');
    assert.equal(found.outcome.id, 'ok');
    const made = await repo.conditionalCreate(encounter('NEW'), parseSearchRequest(`Encounter?identifier=${SYS}|NEW`));
    assert.equal(made.outcome.id, 'created');
    const again = await repo.conditionalCreate(encounter('NEW'), parseSearchRequest(`Encounter?identifier=${SYS}|NEW`));
    assert.equal(again.resource.id, made.resource.id);
    await assert.rejects(
      repo.conditionalCreate(encounter('SAME'), parseSearchRequest(`Encounter?identifier=${SYS}|SAME`)),
      (err: Error) => err instanceof OperationOutcomeError && err.outcome.id === 'multiple-matches',
    );
  }
  assert.equal((await indexed.searchResources(parseSearchRequest('Encounter'))).length, 6);
});
