// A worker of fhir-validation-pool.ts: validates each batch of lines, answers with the first failure.
// Every line is checked against the base R4 definitions. The HL7 profiles a line declares are checked
// once per structure: the validator parses the profile's StructureDefinition anew on every call
// (@medplum/core has no public call that takes a parsed one), which costs it about twenty times the
// base check, and a profile's verdict on these resources depends on their elements and codes, not on
// the numbers, ids and times the base check already covers. So a structure is the resource with those
// masked; a line of a new structure gets the profiles' whole check.
import { parentPort } from 'node:worker_threads';
import { baseIssues, profileIssues } from './fhir-validation.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const DATE_TIME = /^\d{4}(-\d\d(-\d\d(T[\d:.]+(Z|[+-]\d\d:\d\d)?)?)?)?$/;
const checkedStructures = new Set<string>();

/** The resource with its numbers, ids and times masked: what a profile's verdict depends on here. */
const structureOf = (resource: unknown) =>
  JSON.stringify(resource, (_key, value: unknown) =>
    typeof value === 'number' ? 0 : typeof value === 'string' ? (DATE_TIME.test(value) ? 'T' : value.replace(UUID, 'U')) : value,
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
      failure = `${what} is not valid FHIR R4: ${JSON.stringify(issues)}\n${line.slice(0, 2000)}`;
      break;
    }
  }
  parentPort!.postMessage({ failure });
});
