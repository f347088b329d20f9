// Observation, Condition and AllergyIntolerance as written by an integrator, read into the fields of
// the clinical procedures' inputs, which then go through the same schemas and checks as tRPC and
// REST (clinical-write.ts). An element the record has no place for is refused with a 400 naming it,
// never dropped silently; every field remembers the FHIR path it came from, for the issues' expression.
import { BLOOD_PRESSURE, NO_KNOWN_ALLERGY, vitalByLoinc } from '../klinis/index.ts';
import type { Measurement } from '../klinis/index.ts';
import {
  ALLERGY_CLINICAL,
  ALLERGY_VERIFICATION,
  AMENDMENT_REASON_URL,
  CONDITION_CATEGORY,
  CONDITION_CLINICAL,
  CONDITION_VERIFICATION,
  DIAGNOSIS_RANK_URL,
  FHIR_TYPE,
  ICD10,
  LOINC,
  OBSERVATION_CATEGORY,
  UCUM,
} from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { FhirError } from './outcome.ts';
import type { Issue } from './outcome.ts';

type Json = Record<string, unknown>;

/** What a written resource says, in the procedures' terms. */
export interface ClinicalInput {
  kind: ServedKind;
  pasienId?: string;
  kunjunganId?: string;
  /** The amendment-reason extension's text. */
  reason?: string;
  /** The resource is marked entered-in-error (status, or verificationStatus). */
  enteredInError: boolean;
  /** meta.versionId, when given. */
  versionId?: number;
  /** The kind's own fields, as its record and amend inputs name them. */
  fields: Record<string, unknown>;
  /** A field's FHIR path (for `measurements.0.value` and the like too). */
  paths: Record<string, string>;
}

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const codings = (cc: unknown): Json[] => arr(obj(cc)?.coding);
const codeIn = (cc: unknown, system: string): string | undefined => str(codings(cc).find((c) => c.system === system)?.code);

const COMMON = ['resourceType', 'id', 'meta', 'text', 'extension', 'identifier'];
const ELEMENTS: Record<ServedKind, Set<string>> = {
  vital: new Set([
    ...COMMON,
    'status',
    'category',
    'code',
    'subject',
    'encounter',
    'effectiveDateTime',
    'issued',
    'performer',
    'valueQuantity',
    'component',
    'interpretation',
  ]),
  diagnosis: new Set([
    ...COMMON,
    'clinicalStatus',
    'verificationStatus',
    'category',
    'code',
    'subject',
    'encounter',
    'recordedDate',
    'recorder',
    'note',
  ]),
  alergi: new Set([
    ...COMMON,
    'clinicalStatus',
    'verificationStatus',
    'category',
    'criticality',
    'code',
    'patient',
    'encounter',
    'recordedDate',
    'recorder',
    'reaction',
  ]),
};

class Reader {
  readonly issues: Issue[] = [];
  readonly out: ClinicalInput;
  readonly kind: ServedKind;
  readonly r: Json;
  constructor(kind: ServedKind, r: Json) {
    this.kind = kind;
    this.r = r;
    // Every kind names its visit in `encounter`, and its patient in `patient` or `subject`: a refusal of
    // either points there.
    const type = FHIR_TYPE[kind];
    const pasienId = `${type}.${kind === 'alergi' ? 'patient' : 'subject'}`;
    this.out = { kind, enteredInError: false, fields: {}, paths: { kunjunganId: `${type}.encounter`, pasienId } };
  }
  get type(): string {
    return FHIR_TYPE[this.kind];
  }
  refuse(element: string, diagnostics: string, code: Issue['code'] = 'invalid'): void {
    this.issues.push({ severity: 'error', code, diagnostics, expression: [`${this.type}${element ? `.${element}` : ''}`] });
  }
  field(name: string, value: unknown, element: string): void {
    if (value === undefined) return;
    this.out.fields[name] = value;
    this.out.paths[name] = `${this.type}.${element}`;
  }
  /** A `<Type>/<id>` reference's id (or a refusal). */
  ref(element: string, type: string, required: boolean): string | undefined {
    const reference = str(obj(this.r[element])?.reference);
    if (reference === undefined) {
      if (required) this.refuse(element, `${element} (${type}/<id>) is required`, 'required');
      return undefined;
    }
    const m = new RegExp(`^(?:.*/)?${type}/([0-9a-fA-F-]{36})$`).exec(reference);
    if (!m) this.refuse(element, `${element} must reference a ${type} of this server (${type}/<id>)`);
    return m?.[1]?.toLowerCase();
  }
}

function readCommon(x: Reader): void {
  for (const key of Object.keys(x.r))
    if (!ELEMENTS[x.kind].has(key)) x.refuse(key, `${x.type}.${key} is not supported: the record has no place for it`, 'not-supported');
  arr(x.r.extension).forEach((e, i) => {
    if (e.url === AMENDMENT_REASON_URL) {
      x.out.reason = typeof e.valueString === 'string' ? e.valueString : '';
      x.out.paths.reason = `${x.type}.extension[${i}]`;
    } else if (!(x.kind === 'diagnosis' && e.url === DIAGNOSIS_RANK_URL))
      x.refuse(`extension[${i}]`, `extension ${String(e.url)} is not supported`, 'not-supported');
  });
  const versionId = obj(x.r.meta)?.versionId;
  if (versionId !== undefined) {
    if (typeof versionId !== 'string' || !/^\d{1,9}$/.test(versionId))
      x.refuse('meta.versionId', 'meta.versionId must be a version number');
    else x.out.versionId = Number(versionId);
  }
}

function readQuantity(x: Reader, q: Json | undefined, key: string, element: string, i: number, out: Measurement[]): void {
  if (!q || typeof q.value !== 'number') return x.refuse(element, `${element}.value (a number) is required`, 'required');
  if (q.system !== undefined && q.system !== UCUM) x.refuse(`${element}.system`, `the unit must be a UCUM code (system ${UCUM})`);
  out.push({ key, value: q.value, unit: str(q.code) ?? str(q.unit) ?? '' });
  x.out.paths[`measurements.${i}.value`] = `${x.type}.${element}.value`;
  x.out.paths[`measurements.${i}.unit`] = `${x.type}.${element}.code`;
  x.out.paths[`measurements.${i}.key`] = `${x.type}.code`;
}

function readObservation(x: Reader): void {
  const status = x.r.status;
  if (status === 'entered-in-error') x.out.enteredInError = true;
  else if (status !== 'final' && status !== 'amended' && status !== 'corrected')
    x.refuse('status', 'status must be final (amended or corrected on an update; entered-in-error to retract)', 'value');
  const categories = arr(x.r.category);
  if (categories.length && !categories.some((c) => codeIn(c, OBSERVATION_CATEGORY) === 'vital-signs'))
    x.refuse('category', `this server keeps vital signs only: category ${OBSERVATION_CATEGORY}|vital-signs`, 'not-supported');
  x.out.pasienId = x.ref('subject', 'Patient', true);
  x.out.kunjunganId = x.ref('encounter', 'Encounter', true);
  x.field('waktu', x.r.effectiveDateTime, 'effectiveDateTime');
  // A refusal of the time points at it whether it was given or defaulted to now.
  x.out.paths.waktu = `${x.type}.effectiveDateTime`;
  const loinc = codeIn(x.r.code, LOINC);
  const measurements: Measurement[] = [];
  if (loinc === BLOOD_PRESSURE.loinc) {
    if (x.r.valueQuantity !== undefined) x.refuse('valueQuantity', 'a blood pressure panel carries its values in component');
    arr(x.r.component).forEach((c, i) => {
      const sign = vitalByLoinc(codeIn(c.code, LOINC) ?? '');
      if (!sign || (sign.key !== 'sistolik' && sign.key !== 'diastolik'))
        return x.refuse(`component[${i}].code`, 'a blood pressure component is LOINC 8480-6 (systolic) or 8462-4 (diastolic)');
      readQuantity(x, obj(c.valueQuantity), sign.key, `component[${i}].valueQuantity`, measurements.length, measurements);
    });
  } else {
    const sign = vitalByLoinc(loinc ?? '');
    if (!sign)
      x.refuse(
        'code',
        `code must be a vital sign's LOINC code (${LOINC}): 85354-9 (blood pressure panel), 8867-4, 9279-1, 8310-5, 2708-6, 29463-7, 8302-2`,
      );
    else if (sign.key === 'sistolik' || sign.key === 'diastolik')
      x.refuse('code', 'record blood pressure as the 85354-9 panel with both components');
    else {
      if (x.r.component !== undefined) x.refuse('component', `${sign.display} has no components`);
      readQuantity(x, obj(x.r.valueQuantity), sign.key, 'valueQuantity', 0, measurements);
    }
  }
  x.out.fields.measurements = measurements;
  x.out.paths.measurements = loinc === BLOOD_PRESSURE.loinc ? `${x.type}.component` : `${x.type}.valueQuantity`;
}

function readCondition(x: Reader): void {
  const verification = codeIn(x.r.verificationStatus, CONDITION_VERIFICATION);
  if (verification === 'entered-in-error') x.out.enteredInError = true;
  else if (verification !== undefined && verification !== 'confirmed')
    x.refuse('verificationStatus', 'a diagnosis is recorded confirmed (entered-in-error to retract it)', 'not-supported');
  const categories = arr(x.r.category);
  if (categories.length && !categories.some((c) => codeIn(c, CONDITION_CATEGORY) === 'encounter-diagnosis'))
    x.refuse('category', `this server keeps encounter diagnoses only: category ${CONDITION_CATEGORY}|encounter-diagnosis`, 'not-supported');
  x.out.pasienId = x.ref('subject', 'Patient', true);
  x.out.kunjunganId = x.ref('encounter', 'Encounter', true);
  const code = codeIn(x.r.code, ICD10);
  if (code === undefined) x.refuse('code', `code must be an ICD-10 code (system ${ICD10})`, 'required');
  x.field('code', code, 'code');
  x.field('clinicalStatus', codeIn(x.r.clinicalStatus, CONDITION_CLINICAL), 'clinicalStatus');
  const rank = arr(x.r.extension).find((e) => e.url === DIAGNOSIS_RANK_URL);
  x.field('rank', rank ? rank.valueCode : 'secondary', 'extension');
  const notes = arr(x.r.note);
  if (notes.length > 1) x.refuse('note', 'the record keeps one note per diagnosis');
  x.field('note', notes[0]?.text, 'note[0].text');
}

function readAllergy(x: Reader): void {
  const verification = codeIn(x.r.verificationStatus, ALLERGY_VERIFICATION);
  if (verification === 'entered-in-error') x.out.enteredInError = true;
  else x.field('verificationStatus', verification, 'verificationStatus');
  x.field('clinicalStatus', codeIn(x.r.clinicalStatus, ALLERGY_CLINICAL), 'clinicalStatus');
  x.out.pasienId = x.ref('patient', 'Patient', true);
  x.out.kunjunganId = x.ref('encounter', 'Encounter', false);
  const code = obj(x.r.code);
  const noneKnown = codings(code).some((c) => c.code === NO_KNOWN_ALLERGY.code && c.system === NO_KNOWN_ALLERGY.system);
  x.field('noneKnown', noneKnown, 'code');
  if (!noneKnown) {
    const substance = str(code?.text) ?? str(codings(code)[0]?.display);
    if (substance === undefined)
      x.refuse('code', `code.text (the substance) or SNOMED CT ${NO_KNOWN_ALLERGY.code} is required`, 'required');
    x.field('substance', substance, 'code.text');
  }
  const category = x.r.category;
  if (category !== undefined && (!Array.isArray(category) || category.length !== 1))
    x.refuse('category', 'give one category: food, medication, environment or biologic');
  x.field('category', Array.isArray(category) ? category[0] : undefined, 'category[0]');
  x.field('criticality', x.r.criticality, 'criticality');
  const reactions = arr(x.r.reaction);
  if (reactions.length > 1) x.refuse('reaction', 'the record keeps one reaction per allergy');
  const r0 = reactions[0];
  const manifestation = arr(r0?.manifestation)[0];
  x.field('reaction', str(manifestation?.text) ?? str(codings(manifestation)[0]?.display) ?? r0?.description, 'reaction[0]');
}

/** The procedures' fields from a resource of the kind's type; a 400 listing every problem otherwise. */
export function fromClinical(kind: ServedKind, resource: Json): ClinicalInput {
  const x = new Reader(kind, resource);
  if (resource.resourceType !== x.type)
    throw new FhirError(400, 'invalid', `the resource must be a ${x.type}`, { expression: ['resourceType'] });
  readCommon(x);
  if (kind === 'vital') readObservation(x);
  else if (kind === 'diagnosis') readCondition(x);
  else readAllergy(x);
  if (x.issues.length) throw new FhirError(400, 'invalid', x.issues[0]!.diagnostics, { issues: x.issues });
  return x.out;
}
