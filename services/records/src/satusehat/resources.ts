// A finished visit as SATUSEHAT takes it: the clinic as a Location under the hospital's organization,
// the Encounter (class AMB, its status history, the attending practitioner, the location, the hospital
// as serviceProvider, and once the diagnoses exist, `diagnosis`), the diagnoses as Conditions and the
// vital signs as Observations, each with SATUSEHAT's identifier system for the organization
// (http://sys-ids.kemkes.go.id/<type>/<organization id>) and every time in Western Indonesia's +07:00.
import { BLOOD_PRESSURE, vitalByKey, vitalByLoinc } from '../klinis/index.ts';
import type { Entry } from '../klinis/index.ts';
import type { Kunjungan } from '../kunjungan/index.ts';

type Json = Record<string, unknown>;

export const NIK_SYSTEM = 'https://fhir.kemkes.go.id/id/nik';
export const sysIds = (type: string, organizationId: string) => `http://sys-ids.kemkes.go.id/${type}/${organizationId}`;
const LOINC = 'http://loinc.org';
const UCUM = 'http://unitsofmeasure.org';
const ICD10 = 'http://hl7.org/fhir/sid/icd-10';
const WIB_OFFSET_MS = 7 * 3_600_000;

/** An instant as SATUSEHAT's examples write it: local time in +07:00, to the second. */
export function wib(instant: string): string {
  return `${new Date(Date.parse(instant) + WIB_OFFSET_MS).toISOString().slice(0, 19)}+07:00`;
}

/** The platform's ids this visit's resources refer to. */
export interface Refs {
  organizationId: string;
  patient: string;
  practitioner: string;
  location: string;
}

export function locationFor(poliId: string, poliNama: string, organizationId: string): Json {
  return {
    resourceType: 'Location',
    identifier: [{ system: sysIds('location', organizationId), value: poliId }],
    status: 'active',
    name: poliNama,
    mode: 'instance',
    physicalType: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/location-physical-type', code: 'ro', display: 'Room' }] },
    managingOrganization: { reference: `Organization/${organizationId}` },
  };
}

/**
 * The Encounter. `diagnoses` (the platform's Condition ids, primary first) unset: the visit as it was
 * while in progress, which is how SATUSEHAT takes an Encounter before its Conditions exist.
 */
export function encounterFor(k: Kunjungan, refs: Refs, diagnoses?: { id: string; display: string }[]): Json {
  const history = diagnoses ? k.statusHistory : k.statusHistory.filter((h) => h.status !== 'finished');
  const statusHistory = history.map((h, i) => {
    const next = history[i + 1];
    return { status: h.status, period: next ? { start: wib(h.at), end: wib(next.at) } : { start: wib(h.at) } };
  });
  const start = wib(k.startedAt ?? k.createdAt);
  return {
    resourceType: 'Encounter',
    identifier: [{ system: sysIds('encounter', refs.organizationId), value: k.noKunjungan }],
    status: diagnoses ? k.status : 'in-progress',
    class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB', display: 'ambulatory' },
    subject: { reference: `Patient/${refs.patient}`, display: k.pasienNama },
    participant: [
      {
        type: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType', code: 'ATND', display: 'attender' }] }],
        individual: { reference: `Practitioner/${refs.practitioner}` },
      },
    ],
    period: diagnoses && k.endedAt ? { start, end: wib(k.endedAt) } : { start },
    location: [{ location: { reference: `Location/${refs.location}`, display: k.poliNama } }],
    statusHistory,
    serviceProvider: { reference: `Organization/${refs.organizationId}` },
    ...(diagnoses
      ? {
          diagnosis: diagnoses.map((d, i) => ({
            condition: { reference: `Condition/${d.id}`, display: d.display },
            use: {
              coding: [{ system: 'http://terminology.hl7.org/CodeSystem/diagnosis-role', code: 'DD', display: 'Discharge diagnosis' }],
            },
            rank: i + 1,
          })),
        }
      : {}),
  };
}

export function conditionFor(e: Entry, refs: Refs, encounterId: string): Json {
  const isi = e.isi as { code: string; display: string; clinicalStatus: string };
  return {
    resourceType: 'Condition',
    identifier: [{ system: sysIds('condition', refs.organizationId), value: e.id }],
    // An entered-in-error Condition carries no clinical status (FHIR's con-5).
    ...(e.enteredInError
      ? {}
      : { clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: isi.clinicalStatus }] } }),
    verificationStatus: {
      coding: [
        { system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: e.enteredInError ? 'entered-in-error' : 'confirmed' },
      ],
    },
    category: [
      {
        coding: [
          {
            system: 'http://terminology.hl7.org/CodeSystem/condition-category',
            code: 'encounter-diagnosis',
            display: 'Encounter Diagnosis',
          },
        ],
      },
    ],
    code: { coding: [{ system: ICD10, code: isi.code, display: isi.display }] },
    subject: { reference: `Patient/${refs.patient}` },
    encounter: { reference: `Encounter/${encounterId}` },
    recordedDate: wib(e.waktu),
  };
}

function quantity(value: unknown, key: string): Json {
  const sign = vitalByKey(key);
  return { value: Number(value), unit: sign?.unitLabel, system: UCUM, code: sign?.unit };
}

const loinc = (code: string, display: string) => ({ coding: [{ system: LOINC, code, display }] });

export function observationFor(e: Entry, refs: Refs, encounterId: string): Json {
  const isBp = e.kode === BLOOD_PRESSURE.loinc;
  const sign = isBp ? undefined : vitalByLoinc(String(e.kode));
  const value = isBp
    ? {
        component: [
          { code: loinc('8480-6', 'Systolic blood pressure'), valueQuantity: quantity(e.isi.sistolik, 'sistolik') },
          { code: loinc('8462-4', 'Diastolic blood pressure'), valueQuantity: quantity(e.isi.diastolik, 'diastolik') },
        ],
      }
    : { valueQuantity: quantity(e.isi.value, sign?.key ?? '') };
  return {
    resourceType: 'Observation',
    identifier: [{ system: sysIds('observation', refs.organizationId), value: e.id }],
    status: e.enteredInError ? 'entered-in-error' : e.version > 1 ? 'amended' : 'final',
    category: [
      { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs', display: 'Vital Signs' }] },
    ],
    code: loinc(String(e.kode), isBp ? BLOOD_PRESSURE.display : (sign?.display ?? String(e.kode))),
    subject: { reference: `Patient/${refs.patient}` },
    encounter: { reference: `Encounter/${encounterId}` },
    performer: [{ reference: `Practitioner/${refs.practitioner}` }],
    effectiveDateTime: wib(e.waktu),
    issued: wib(e.createdAt),
    ...value,
  };
}
