// The search interaction (`GET Patient?...`, `POST Patient/_search`): parameters to conditions, one
// keyset page from the record search, and a searchset Bundle whose `next` and `previous` links carry a
// sealed cursor (the sort key of the page's last or first row, bound to the tenant and to the search
// it came from). Pages cost the same at any depth and any table size: no OFFSET anywhere.
import { randomUUID } from 'node:crypto';
import { pasienSearch } from '../pasien/index.ts';
import type { Condition } from '../pasien/index.ts';
import { guard, preferOf, via } from './context.ts';
import type { Interaction } from './context.ts';
import { toPatient } from './mapping.ts';
import { FhirError, operationOutcome } from './outcome.ts';
import { parseSearch } from './params.ts';
import type { ParsedSearch } from './params.ts';
import { readForm, sendResource } from './wire.ts';

export async function search(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.list');
  const query = new URLSearchParams(ix.query);
  if (ix.req.method === 'POST') for (const [k, v] of await readForm(ix.req, ix.maxBodyBytes)) query.append(k, v);
  const tenantId = ix.scope.db.tenantId;
  const parsed = parseSearch(query, { tenantId, strict: preferOf(ix.req).strict });
  const conditions = patientId ? [...parsed.conditions, { field: 'id' as const, anyOf: [patientId] }] : parsed.conditions;

  if (parsed.count === 0) return sendTotal(ix, parsed, conditions);

  let page: { direction: 'next' | 'prev'; key: string[] } | undefined;
  if (parsed.cursor !== undefined) {
    const [digest, direction, ...key] = ix.scope.cursors.open(parsed.cursor, 'fhir.search', tenantId).map(String);
    if (digest !== parsed.digest || (direction !== 'next' && direction !== 'prev')) {
      throw new FhirError(400, 'invalid', '_cursor belongs to another search: page with the links of this one', {
        expression: ['_cursor'],
      });
    }
    page = { direction, key };
  }
  const result = await pasienSearch(ix.scope).search({
    conditions,
    sort: parsed.sort,
    limit: parsed.count,
    ...(page ? { page } : {}),
    audit: { ...via('search'), filters: parsed.used.map(([k]) => k), ...(page ? { page: page.direction } : {}) },
  });

  const params = parsed.used.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  params.push(`_count=${parsed.count}`);
  const url = (cursor?: string) =>
    `${ix.base}/Patient?${[...params, ...(cursor ? [`_cursor=${encodeURIComponent(cursor)}`] : [])].join('&')}`;
  const seal = (direction: 'next' | 'prev', key: string[]) =>
    ix.scope.cursors.seal('fhir.search', tenantId, [parsed.digest, direction, ...key]);
  const forward = page?.direction !== 'prev';
  const link = [
    { relation: 'self', url: url(parsed.cursor) },
    { relation: 'first', url: url() },
  ];
  // Read forwards: a next page when there were more rows, a previous one when this is not the first.
  // Read backwards: the reverse.
  const hasNext = forward ? result.more : page !== undefined;
  const hasPrevious = forward ? page !== undefined : result.more;
  if (hasPrevious && result.firstKey) link.push({ relation: 'previous', url: url(seal('prev', result.firstKey)) });
  if (hasNext && result.lastKey) link.push({ relation: 'next', url: url(seal('next', result.lastKey)) });

  const entry: Record<string, unknown>[] = result.items.map((p) => ({
    fullUrl: `${ix.base}/Patient/${p.id}`,
    resource: toPatient(p, tenantId),
    search: { mode: 'match' },
  }));
  entry.push(...ignoredEntry(parsed));
  sendResource(ix.res, 200, { resourceType: 'Bundle', id: randomUUID(), type: 'searchset', link, entry }, ix.pretty);
}

/** The warning about parameters lenient handling ignored, as an `outcome` entry (none when none were). */
function ignoredEntry(parsed: ParsedSearch): Record<string, unknown>[] {
  if (!parsed.ignored.length) return [];
  const issue = {
    severity: 'warning',
    code: 'not-supported',
    diagnostics: `ignored search parameters: ${parsed.ignored.join(', ')}`,
    expression: parsed.ignored,
  } as const;
  return [{ fullUrl: `urn:uuid:${randomUUID()}`, resource: operationOutcome([issue]), search: { mode: 'outcome' } }];
}

/**
 * `_count=0`: FHIR R4 search says a server returns no more than asked for, so the answer is the total
 * alone, a searchset with no matches and no pages to follow (a cursor means nothing here).
 */
async function sendTotal(ix: Interaction, parsed: ParsedSearch, conditions: Condition[]): Promise<void> {
  const total = await pasienSearch(ix.scope).count({
    conditions,
    audit: { ...via('search'), filters: parsed.used.map(([k]) => k), count: 0 },
  });
  const params = [...parsed.used.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), '_count=0'];
  const self = `${ix.base}/Patient?${params.join('&')}`;
  const bundle = { resourceType: 'Bundle', id: randomUUID(), type: 'searchset', total, link: [{ relation: 'self', url: self }] };
  const entry = ignoredEntry(parsed);
  sendResource(ix.res, 200, entry.length ? { ...bundle, entry } : bundle, ix.pretty);
}
