// A worker of fhir-validation-pool.ts: validates each batch of lines, answers with the first failure.
// Every line is checked against the base R4 definitions. The HL7 profiles a line declares are checked
// once per structure: the validator parses the profile's StructureDefinition anew on every call
// (@medplum/core has no public call that takes a parsed one), which costs it about twenty times the
// base check, and a profile's verdict on these resources depends on their elements, codes and the
// precision of their times, not on the numbers, ids and digits the base check already covers. So a
// structure is the resource with numbers, ids and the digits of full date-times masked (a date-time
// keeps its length and punctuation, so a time of another precision is another structure); a line of a
// new structure gets the profiles' whole check.
import { parentPort } from 'node:worker_threads';
import { baseIssues, invalidFhirMessage, profileIssues } from './fhir-validation.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const FULL_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;
const checkedStructures = new Set<string>();

/** The resource with its numbers, ids and date-times' digits masked: what a profile's verdict depends on here. */
const structureOf = (resource: unknown) =>
  JSON.stringify(resource, (_key, value: unknown) =>
    typeof value === 'number'
      ? 0
      : typeof value === 'string'
        ? FULL_DATE_TIME.test(value)
          ? value.replace(/\d/g, '0')
          : value.replace(UUID, 'U')
        : value,
  );

function issuesOf(line: string): unknown[] {
  const resource = JSON.parse(line) as { meta?: { profile?: unknown[] } };
  const base = baseIssues(resource);
  if (base.length || !resource.meta?.profile?.length) return base;
  const structure = structureOf(resource);
  if (checkedStructures.has(structure)) return [];
  checkedStructures.add(structure);
  return profileIssues(resource);
}

parentPort!.on('message', (batch: { line: string; what: string }[]) => {
  let failure: string | undefined;
  for (const { line, what } of batch) {
    const issues = issuesOf(line);
    if (issues.length) {
      failure = invalidFhirMessage(what, issues, line);
      break;
    }
  }
  parentPort!.postMessage({ failure });
});
