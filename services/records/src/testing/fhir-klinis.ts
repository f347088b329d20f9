// Test support for the clinical FHIR tests: a records process with a clinic, its clinicians (a doctor
// and a nurse assigned, a doctor who is not), two ICD-10 codes, started visits, and the resources an
// integrator writes. Not imported by production code.
import { dataOf, newPasien } from './base.ts';
import type { RecordsUnderTest } from './base.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ClinicalWorld {
  r: RecordsUnderTest;
  admin: string;
  clerk: string;
  nurse: string;
  doctor: string;
  /** A doctor of the hospital at no clinic of the patient's visits: no treatment relationship. */
  stranger: string;
  auditor: string;
  poliId: string;
  /** A new patient (an adult, unless `patient` says otherwise) with a visit at the clinic, arrived and started by the doctor. */
  startedVisit(patient?: Record<string, unknown>): Promise<{ pasienId: string; visit: string }>;
  /** The visit dated `day` (YYYY-MM-DD), as if registered then and still open: observations of that day belong to it. */
  openSince(visit: string, day: string): Promise<void>;
}

let n = 900;

/** The clinic, its clinicians and the codes, in a records process just started (startRecords). */
export async function clinicalWorld(r: RecordsUnderTest): Promise<ClinicalWorld> {
  const admin = await r.principal('rs-demo', 'tenant_admin');
  const clerk = await r.principal('rs-demo', 'registration_clerk');
  const nurse = await r.principal('rs-demo', 'nurse', { userId: 'ns-sri' });
  const doctor = await r.principal('rs-demo', 'doctor', { userId: 'dr-ani' });
  const stranger = await r.principal('rs-demo', 'doctor', { userId: 'dr-lain' });
  const auditor = await r.principal('rs-demo', 'auditor');
  const poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
  for (const userId of ['dr-ani', 'ns-sri']) dataOf(await r.mutate('poli.assign', { poliId, userId }, admin));
  dataOf(await r.mutate('pengaturan.update', { organizationId: '100011961' }, admin));
  await r.owner.query(
    "insert into records.kode (system, code, display_en, display_id) values ('icd-10', 'J06.9', 'Acute upper respiratory infection, unspecified', 'Infeksi saluran napas atas akut'), ('icd-10', 'I10', 'Essential (primary) hypertension', 'Hipertensi esensial') on conflict do nothing",
  );
  return {
    r,
    admin,
    clerk,
    nurse,
    doctor,
    stranger,
    auditor,
    poliId,
    async startedVisit(patient = {}) {
      const pasienId = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(++n, patient), admin)).id;
      const visit = dataOf<{ id: string }>(await r.mutate('kunjungan.register', { pasienId, poliId }, clerk)).id;
      dataOf(await r.mutate('kunjungan.arrive', { id: visit }, clerk));
      dataOf(await r.mutate('kunjungan.start', { id: visit }, doctor));
      return { pasienId, visit };
    },
    async openSince(visit, day) {
      await r.owner.query('update records.kunjungan set tanggal = $2::date where id = $1::uuid', [visit, day]);
    },
  };
}

export const UCUM = 'http://unitsofmeasure.org';
export const VS_CATEGORY = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs' }] };
export const AMENDMENT_REASON = 'https://simrs.id/fhir/StructureDefinition/amendment-reason';

const loinc = (code: string) => ({ coding: [{ system: 'http://loinc.org', code }] });
const mmHg = (value: number) => ({ value, unit: 'mmHg', system: UCUM, code: 'mm[Hg]' });

/** A blood pressure panel as an integrator writes it. */
export function bpObservation(pasienId: string, visit: string, sys: number, dia: number): Json {
  return {
    resourceType: 'Observation',
    status: 'final',
    category: [VS_CATEGORY],
    code: loinc('85354-9'),
    subject: { reference: `Patient/${pasienId}` },
    encounter: { reference: `Encounter/${visit}` },
    component: [
      { code: loinc('8480-6'), valueQuantity: mmHg(sys) },
      { code: loinc('8462-4'), valueQuantity: mmHg(dia) },
    ],
  };
}

/** One vital sign (LOINC code, value, UCUM code). */
export function vitalObservation(pasienId: string, visit: string, code: string, value: number, unit: string): Json {
  return {
    resourceType: 'Observation',
    status: 'final',
    category: [VS_CATEGORY],
    code: loinc(code),
    subject: { reference: `Patient/${pasienId}` },
    encounter: { reference: `Encounter/${visit}` },
    valueQuantity: { value, unit, system: UCUM, code: unit },
  };
}

export function diagnosisCondition(pasienId: string, visit: string, code: string, rank = 'primary'): Json {
  return {
    resourceType: 'Condition',
    extension: [{ url: 'https://simrs.id/fhir/StructureDefinition/diagnosis-rank', valueCode: rank }],
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'encounter-diagnosis' }] }],
    code: { coding: [{ system: 'http://hl7.org/fhir/sid/icd-10', code }] },
    subject: { reference: `Patient/${pasienId}` },
    encounter: { reference: `Encounter/${visit}` },
  };
}

export function allergy(pasienId: string, substance: string, category = 'medication'): Json {
  return {
    resourceType: 'AllergyIntolerance',
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical', code: 'active' }] },
    verificationStatus: {
      coding: [{ system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification', code: 'confirmed' }],
    },
    category: [category],
    criticality: 'high',
    code: { text: substance },
    patient: { reference: `Patient/${pasienId}` },
    reaction: [{ manifestation: [{ text: 'ruam kulit' }] }],
  };
}

/** The ids of a searchset's matches. */
/**
 * A new entry of a clinical type for the patient's visit, as a clinician would post it: a heart rate,
 * a secondary hypertension diagnosis, or an environmental allergy to `substance` (give each create of
 * an allergy its own: one substance is recorded once).
 */
export function clinicalEntry(type: string, pasienId: string, visit: string, substance = 'Debu'): Json {
  if (type === 'Observation') return vitalObservation(pasienId, visit, '8867-4', 80, '/min');
  if (type === 'Condition') return diagnosisCondition(pasienId, visit, 'I10', 'secondary');
  return allergy(pasienId, substance, 'environment');
}

export const matchIds = (bundle: Json): string[] =>
  ((bundle.entry ?? []) as Json[]).filter((e) => e.search?.mode === 'match').map((e) => String(e.resource.id));
