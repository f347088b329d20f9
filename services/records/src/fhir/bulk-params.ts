// The kick-off request of a FHIR Bulk Data export (v2), read strictly: `Prefer: respond-async` is
// required, except that `Prefer: handling=lenient` lets a request without it through (the spec allows
// a server to), and turns a `_type` the token does not reach from a refusal into an omission. What is
// not offered (`_elements`, `_typeFilter`, `includeAssociatedData`, `patient`, any other parameter)
// is refused, never silently ignored, so a client never takes a partial export for a whole one.
import { FhirError } from './outcome.ts';

/** The resource types an export writes, in the order their files are listed. */
export const EXPORT_TYPES = ['Patient', 'Encounter', 'Observation', 'Condition', 'AllergyIntolerance'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

/** The three spellings of NDJSON the spec names for `_outputFormat`. */
const NDJSON = new Set(['application/fhir+ndjson', 'application/ndjson', 'ndjson']);
// `_format` and `_pretty` are every FHIR interaction's (wire.ts), not the export's.
const OFFERED = new Set(['_type', '_since', '_outputFormat', '_format', '_pretty']);

export interface KickOff {
  types: ExportType[];
  since: string | undefined;
  lenient: boolean;
}

const invalid = (message: string) => new FhirError(400, 'invalid', message);

/** The Prefer header's tokens, lower-cased (`respond-async`, `handling=lenient`). */
function preferences(header: string | string[] | undefined): Set<string> {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return new Set(
    text
      .split(/[,;]/)
      .map((t) => t.trim().toLowerCase().replace(/\s+/g, ''))
      .filter(Boolean),
  );
}

function sinceOf(value: string | null): string | undefined {
  if (value === null) return undefined;
  // A FHIR instant: a full date and time with a zone.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(Date.parse(value)))
    throw invalid('_since must be a FHIR instant, e.g. 2026-01-02T03:04:05Z');
  return new Date(value).toISOString();
}

/**
 * The types asked for (every type the export writes when `_type` is absent), each checked against
 * `reachable` (the types the token's scopes reach): strictly refused, or dropped when lenient.
 */
function typesOf(values: string[], reachable: ReadonlySet<ExportType>, lenient: boolean): ExportType[] {
  const named = values.flatMap((v) => v.split(',')).map((t) => t.trim());
  const asked = named.length ? named : [...EXPORT_TYPES];
  const known = (t: string): t is ExportType => (EXPORT_TYPES as readonly string[]).includes(t);
  const unknown = asked.filter((t) => !known(t));
  if (unknown.length && !lenient) throw invalid(`_type names types this server does not export: ${unknown.join(', ')}`);
  const kept = [...new Set(asked.filter(known))];
  const unreached = kept.filter((t) => !reachable.has(t));
  if (unreached.length && named.length && !lenient)
    throw new FhirError(403, 'forbidden', `this credential has no system/ scope for: ${unreached.join(', ')}`);
  const types = EXPORT_TYPES.filter((t) => kept.includes(t) && reachable.has(t));
  if (!types.length) throw new FhirError(403, 'forbidden', 'this credential reaches none of the requested types');
  return types;
}

export function parseKickOff(query: URLSearchParams, prefer: string | string[] | undefined, reachable: ReadonlySet<ExportType>): KickOff {
  const prefs = preferences(prefer);
  const lenient = prefs.has('handling=lenient');
  if (!prefs.has('respond-async') && !lenient) throw invalid('an export runs asynchronously: send Prefer: respond-async');
  for (const name of new Set(query.keys()))
    if (!OFFERED.has(name)) throw invalid(`parameter ${name} is not supported by this server's export`);
  for (const name of ['_since', '_outputFormat']) if (query.getAll(name).length > 1) throw invalid(`${name} may be given once`);
  const format = query.get('_outputFormat');
  if (format !== null && !NDJSON.has(format)) throw invalid(`_outputFormat ${format} is not supported: use application/fhir+ndjson`);
  return { types: typesOf(query.getAll('_type'), reachable, lenient), since: sinceOf(query.get('_since')), lenient };
}
