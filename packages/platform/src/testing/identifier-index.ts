// @medplum/fhir-router's MemoryRepository answers every search, conditional create included, by testing
// each stored resource of the type with FHIRPath, so a stand-in that holds thousands of resources spends
// most of its time there (a search by identifier is what every send to SATUSEHAT does). This repository
// is the same MemoryRepository with an index by identifier in front: a search whose one filter is an
// identifier `system|value` takes its candidates from the index, and the library's own matcher
// (`matchesSearchRequest`) still decides which of them match, so the answers are the library's. Any
// other search goes to the library as it is, and so does every search of a type whose `identifier`
// search parameter reads more than its `identifier` element (DocumentReference's masterIdentifier).
//
// The index is kept through the repository's public writes. They are not atomic with it (the library's
// writes are async), so whoever interleaves writes with identifier searches must run them one at a
// time; the stand-in does (satusehat-peer.ts).
import { allOk, created, getSearchParameter, matchesSearchRequest, multipleMatches, Operator, OperationOutcomeError } from '@medplum/core';
import type { SearchRequest, WithId } from '@medplum/core';
import { MemoryRepository } from '@medplum/fhir-router';
import type { CreateResourceOptions, DeleteResourceOptions, UpdateResourceOptions } from '@medplum/fhir-router';
import type { Bundle, OperationOutcome, Resource } from '@medplum/fhirtypes';

/** Token search is case-insensitive in the library's matcher, so the index is too. */
const keyOf = (type: string, system: string, value: string) => `${type}|${system}|${value}`.toLowerCase();

const plainIdentifier = new Map<string, boolean>();
/** Whether the type's `identifier` search parameter reads its `identifier` element and nothing else. */
function searchesIdentifierElement(type: string): boolean {
  const known = plainIdentifier.get(type);
  if (known !== undefined) return known;
  const expression = getSearchParameter(type, 'identifier')?.expression;
  if (!expression) return false; // not (yet) among the library's search parameters: asked again next time
  const own = expression
    .split('|')
    .map((p) => p.trim())
    .filter((p) => p.startsWith(`${type}.`));
  const plain = own.length === 1 && own[0] === `${type}.identifier`;
  plainIdentifier.set(type, plain);
  return plain;
}

/** The identifier `system|value` a search asks for, when that is its only filter and nothing else shapes it. */
function identifierOnly(search: SearchRequest): { system: string; value: string } | undefined {
  const filter = search.filters?.length === 1 ? search.filters[0]! : undefined;
  if (!filter || filter.code !== 'identifier' || filter.operator !== Operator.EQUALS) return undefined;
  if (!searchesIdentifierElement(search.resourceType)) return undefined;
  if (search.sortRules?.length || search.include || search.revInclude || search.offset) return undefined;
  // One `system|value` with both parts: no OR list (comma), no escapes, no system-only or value-only token.
  if (/[,\\]/.test(filter.value)) return undefined;
  const parts = filter.value.split('|');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { system: parts[0], value: parts[1] };
}

function identifiersOf(resource: Resource): Array<{ system: string; value: string }> {
  const held = (resource as { identifier?: unknown }).identifier;
  const list = (Array.isArray(held) ? held : held ? [held] : []) as Array<{ system?: unknown; value?: unknown }>;
  return list.flatMap((i) => (typeof i.system === 'string' && typeof i.value === 'string' ? [{ system: i.system, value: i.value }] : []));
}

export class IdentifierIndexedRepository extends MemoryRepository {
  /** `type|system|value` (lower case) to the ids of the resources that carry it. */
  private readonly byIdentifier = new Map<string, Set<string>>();
  /** `type/id` to the keys it is filed under, to unfile it when it changes or goes. */
  private readonly filedUnder = new Map<string, string[]>();

  private file(resource: WithId<Resource>): void {
    this.unfile(resource.resourceType, resource.id);
    const keys = identifiersOf(resource).map((i) => keyOf(resource.resourceType, i.system, i.value));
    for (const key of keys) {
      const ids = this.byIdentifier.get(key) ?? new Set<string>();
      ids.add(resource.id);
      this.byIdentifier.set(key, ids);
    }
    this.filedUnder.set(`${resource.resourceType}/${resource.id}`, keys);
  }

  private unfile(type: string, id: string): void {
    for (const key of this.filedUnder.get(`${type}/${id}`) ?? []) {
      const ids = this.byIdentifier.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.byIdentifier.delete(key);
    }
    this.filedUnder.delete(`${type}/${id}`);
  }

  /** The resources that match an identifier-only search, or undefined when the index cannot answer it. */
  private async indexed<T extends Resource>(search: SearchRequest<T>): Promise<Array<WithId<T>> | undefined> {
    const wanted = identifierOnly(search);
    if (!wanted) return undefined;
    const found: Array<WithId<T>> = [];
    for (const id of this.byIdentifier.get(keyOf(search.resourceType, wanted.system, wanted.value)) ?? []) {
      const resource = await this.readResource<WithId<T>>(search.resourceType, id);
      if (matchesSearchRequest(resource, search)) found.push(resource);
    }
    return found;
  }

  override async createResource<T extends Resource>(resource: T, options?: CreateResourceOptions, update?: boolean): Promise<WithId<T>> {
    const stored = await super.createResource(resource, options, update);
    this.file(stored);
    return stored;
  }

  override async updateResource<T extends Resource>(resource: T, options?: UpdateResourceOptions): Promise<WithId<T>> {
    const stored = await super.updateResource(resource, options);
    this.file(stored);
    return stored;
  }

  override async deleteResource(resourceType: string, id: string, options?: DeleteResourceOptions): Promise<void> {
    await super.deleteResource(resourceType, id, options);
    this.unfile(resourceType, id);
  }

  override async expungeResources(resourceType: string, ids: string[]): Promise<void> {
    await super.expungeResources(resourceType, ids);
    for (const id of ids) this.unfile(resourceType, id);
  }

  override clear(): void {
    super.clear();
    this.byIdentifier.clear();
    this.filedUnder.clear();
  }

  override async search<T extends Resource>(search: SearchRequest<T>): Promise<Bundle<WithId<T>>> {
    const found = await this.indexed(search);
    if (!found) return super.search(search);
    const entry = found.slice(0, search.count ?? found.length).map((resource) => ({ search: { mode: 'match' as const }, resource }));
    return { resourceType: 'Bundle', type: 'searchset', entry: entry.length ? entry : undefined, total: found.length };
  }

  /** As the library's: one match is answered as it stands, none is created, more than one is refused. */
  override async conditionalCreate<T extends Resource>(
    resource: T,
    search: SearchRequest<T>,
    options?: CreateResourceOptions,
  ): Promise<{ resource: WithId<T>; outcome: OperationOutcome }> {
    const found = search.resourceType === resource.resourceType ? await this.indexed(search) : undefined;
    if (!found) return super.conditionalCreate(resource, search, options);
    if (found.length > 1) throw new OperationOutcomeError(multipleMatches);
    const existing = found[0];
    if (!existing) return { resource: await this.createResource(resource, options), outcome: created };
    if (!options?.assignedId && resource.id && resource.id !== existing.id) return super.conditionalCreate(resource, search, options); // the library's own refusal
    return { resource: existing, outcome: allOk };
  }
}
