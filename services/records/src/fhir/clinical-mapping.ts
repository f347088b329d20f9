// Clinical entries as FHIR R4 resources: vital signs as Observations of FHIR's vital-signs profile
// (LOINC code, UCUM quantity, blood pressure as the 85354-9 panel with its two components, the flag as
// interpretation), diagnoses as encounter-diagnosis Conditions coded in ICD-10, allergies as
// AllergyIntolerances (SNOMED CT 716186003 for "no known allergy"). Every resource carries SATUSEHAT's
// identifier for the hospital's organization id (http://sys-ids.kemkes.go.id/<type>/<organization id>,
// SIMRS's own system while the id is not set), as the Encounter does.
import type { ClinicalKind } from '../access/index.ts';
import { BLOOD_PRESSURE, NO_KNOWN_ALLERGY, vitalByKey, vitalByLoinc } from '../klinis/index.ts';
import type { Entry } from '../klinis/index.ts';

export const LOINC = 'http://loinc.org';
export const UCUM = 'http://unitsofmeasure.org';
export const ICD10 = 'http://hl7.org/fhir/sid/icd-10';
export const OBSERVATION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/observation-category';
export const CONDITION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/condition-category';
export const INTERPRETATION = 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation';
export const CONDITION_CLINICAL = 'http://terminology.hl7.org/CodeSystem/condition-clinical';
export const CONDITION_VERIFICATION = 'http://terminology.hl7.org/CodeSystem/condition-ver-status';
export const ALLERGY_CLINICAL = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical';
export const ALLERGY_VERIFICATION = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification';
/** Why the latest version was written (a correction, an entered-in-error mark, an entry added to a finished visit). */
export const AMENDMENT_REASON_URL = 'https://simrs.id/fhir/StructureDefinition/amendment-reason';
/** Primary or secondary diagnosis of the visit (FHIR R4's Condition has no rank; SATUSEHAT ranks in Encounter.diagnosis). */
export const DIAGNOSIS_RANK_URL = 'https://simrs.id/fhir/StructureDefinition/diagnosis-rank';
export const VITAL_SIGNS_PROFILE = 'http://hl7.org/fhir/StructureDefinition/vitalsigns';

/** The FHIR type each served kind is, and SATUSEHAT's path segment of its identifier system. */
export const FHIR_TYPE = { vital: 'Observation', diagnosis: 'Condition', alergi: 'AllergyIntolerance' } as const;
export type ServedKind = keyof typeof FHIR_TYPE;
const SYSTEM_SEGMENT: Record<ServedKind, string> = { vital: 'observation', diagnosis: 'condition', alergi: 'allergy' };

export const identifierSystem = (kind: ServedKind, organizationId: string, tenantId: string) =>
  organizationId
    ? `http://sys-ids.kemkes.go.id/${SYSTEM_SEGMENT[kind]}/${organizationId}`
    : `https://simrs.id/fhir/sid/${SYSTEM_SEGMENT[kind]}/${tenantId}`;

/** The vital-signs profile of each LOINC code (R4's own profiles of vitalsigns). */
const PROFILE_OF_LOINC = new Map([
  ['85354-9', 'bp'],
  ['8867-4', 'heartrate'],
  ['9279-1', 'resprate'],
  ['8310-5', 'bodytemp'],
  ['2708-6', 'oxygensat'],
  ['29463-7', 'bodyweight'],
  ['8302-2', 'bodyheight'],
]);

const FLAG_DISPLAY: Record<string, string> = { N: 'Normal', L: 'Low', H: 'High', LL: 'Critical low', HH: 'Critical high' };

/** The categories each kind's entries are in (records.klinis.kategori), with the system FHIR writes them in. */
export const KATEGORI: Record<ServedKind, { system: string | undefined; codes: readonly string[] }> = {
  vital: { system: OBSERVATION_CATEGORY, codes: ['vital-signs'] },
  diagnosis: { system: CONDITION_CATEGORY, codes: ['encounter-diagnosis'] },
  alergi: { system: undefined, codes: ['food', 'medication', 'environment', 'biologic', 'none'] },
};

export interface MappingContext {
  tenantId: string;
  organizationId: string;
}

function common(e: Entry, kind: ServedKind, ctx: MappingContext, profile?: string[]): Record<string, unknown> {
  const extension = [
    ...(e.peran ? [{ url: DIAGNOSIS_RANK_URL, valueCode: e.peran }] : []),
    ...(e.reason ? [{ url: AMENDMENT_REASON_URL, valueString: e.reason }] : []),
  ];
  return {
    resourceType: FHIR_TYPE[kind],
    id: e.id,
    meta: { versionId: String(e.version), lastUpdated: iso(e.updatedAt), ...(profile ? { profile } : {}) },
    ...(extension.length ? { extension } : {}),
    identifier: [{ system: identifierSystem(kind, ctx.organizationId, ctx.tenantId), value: e.id }],
  };
}

/**
 * A timestamp as Date#toISOString gives it. The app pool already answers timestamps so ('2026-01-02T
 * 03:04:05.678Z': db/db.ts), and they pass as they are; anything else (a stored version's JSON) is
 * parsed.
 */
const iso = (v: string) =>
  v.length === 24 && v.charCodeAt(10) === 84 /* T */ && v.charCodeAt(23) === 90 /* Z */ ? v : new Date(v).toISOString();
const patientRef = (e: Entry) => ({ reference: `Patient/${e.pasienId}` });
const encounterRef = (e: Entry) => (e.kunjunganId ? { encounter: { reference: `Encounter/${e.kunjunganId}` } } : {});
/** Who wrote the entry: identity's user id (no Practitioner resource is served). */
const userRef = (ctx: MappingContext, userId: string) => ({
  type: 'Practitioner',
  identifier: { system: `https://simrs.id/fhir/sid/user/${ctx.tenantId}`, value: userId },
});

function quantity(value: unknown, key: string) {
  const sign = vitalByKey(key)!;
  return { value: Number(value), unit: sign.unitLabel, system: UCUM, code: sign.unit };
}

const loincCode = (code: string, display: string) => ({ coding: [{ system: LOINC, code, display }], text: display });

export function toObservation(e: Entry, ctx: MappingContext): Record<string, unknown> {
  const isBp = e.kode === BLOOD_PRESSURE.loinc;
  const sign = isBp ? undefined : vitalByLoinc(String(e.kode));
  const specific = PROFILE_OF_LOINC.get(String(e.kode));
  const value = isBp
    ? {
        component: [
          { code: loincCode('8480-6', 'Systolic blood pressure'), valueQuantity: quantity(e.isi.sistolik, 'sistolik') },
          { code: loincCode('8462-4', 'Diastolic blood pressure'), valueQuantity: quantity(e.isi.diastolik, 'diastolik') },
        ],
      }
    : { valueQuantity: quantity(e.isi.value, sign?.key ?? '') };
  return {
    ...common(e, 'vital', ctx, [VITAL_SIGNS_PROFILE, ...(specific ? [`http://hl7.org/fhir/StructureDefinition/${specific}`] : [])]),
    status: e.enteredInError ? 'entered-in-error' : e.version > 1 ? 'amended' : 'final',
    category: [{ coding: [{ system: OBSERVATION_CATEGORY, code: 'vital-signs', display: 'Vital Signs' }], text: 'Vital Signs' }],
    code: loincCode(String(e.kode), isBp ? BLOOD_PRESSURE.display : (sign?.display ?? String(e.kode))),
    subject: patientRef(e),
    ...encounterRef(e),
    effectiveDateTime: iso(e.waktu),
    issued: iso(e.createdAt),
    performer: [userRef(ctx, e.createdBy)],
    ...(isBp ? {} : value),
    ...(e.flag ? { interpretation: [{ coding: [{ system: INTERPRETATION, code: e.flag, display: FLAG_DISPLAY[e.flag] }] }] } : {}),
    ...(isBp ? value : {}),
  };
}

export function toCondition(e: Entry, ctx: MappingContext): Record<string, unknown> {
  const isi = e.isi as { code: string; display: string; displayId?: string; clinicalStatus: string; note?: string };
  return {
    ...common(e, 'diagnosis', ctx),
    // An entered-in-error Condition carries no clinical status (FHIR's con-5).
    ...(e.enteredInError ? {} : { clinicalStatus: { coding: [{ system: CONDITION_CLINICAL, code: isi.clinicalStatus }] } }),
    verificationStatus: { coding: [{ system: CONDITION_VERIFICATION, code: e.enteredInError ? 'entered-in-error' : 'confirmed' }] },
    category: [{ coding: [{ system: CONDITION_CATEGORY, code: 'encounter-diagnosis', display: 'Encounter Diagnosis' }] }],
    code: { coding: [{ system: ICD10, code: isi.code, display: isi.display }], text: isi.displayId ?? isi.display },
    subject: patientRef(e),
    ...encounterRef(e),
    recordedDate: iso(e.waktu),
    recorder: userRef(ctx, e.createdBy),
    ...(isi.note ? { note: [{ text: isi.note }] } : {}),
  };
}

export function toAllergyIntolerance(e: Entry, ctx: MappingContext): Record<string, unknown> {
  const isi = e.isi as {
    noneKnown?: boolean;
    substance?: string;
    category?: string;
    criticality?: string;
    reaction?: string;
    clinicalStatus: string;
    verificationStatus: string;
  };
  return {
    ...common(e, 'alergi', ctx),
    // An entered-in-error AllergyIntolerance carries no clinical status (FHIR's ait-2).
    ...(e.enteredInError ? {} : { clinicalStatus: { coding: [{ system: ALLERGY_CLINICAL, code: isi.clinicalStatus }] } }),
    verificationStatus: {
      coding: [{ system: ALLERGY_VERIFICATION, code: e.enteredInError ? 'entered-in-error' : isi.verificationStatus }],
    },
    ...(isi.category ? { category: [isi.category] } : {}),
    ...(isi.criticality ? { criticality: isi.criticality } : {}),
    code: isi.noneKnown ? { coding: [NO_KNOWN_ALLERGY], text: NO_KNOWN_ALLERGY.display } : { text: isi.substance },
    patient: patientRef(e),
    ...encounterRef(e),
    recordedDate: iso(e.waktu),
    recorder: userRef(ctx, e.createdBy),
    ...(isi.reaction ? { reaction: [{ manifestation: [{ text: isi.reaction }] }] } : {}),
  };
}

/** Any served entry as its resource. */
export function toResource(e: Entry, ctx: MappingContext): Record<string, unknown> {
  const kind = e.jenis as ClinicalKind;
  if (kind === 'vital') return toObservation(e, ctx);
  if (kind === 'diagnosis') return toCondition(e, ctx);
  return toAllergyIntolerance(e, ctx);
}
