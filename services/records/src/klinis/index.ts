// Clinical entries (vital signs, diagnoses, allergies, notes): procedures, store, and the checks of each kind.
export { alergiPrepare, catatanPrepare, diagnosisPrepare, NO_KNOWN_ALLERGY, vitalsPrepare } from './kinds.ts';
export { alergiRouter, catatanRouter, diagnosisRouter, vitalRouter } from './procedures.ts';
export * from './schema.ts';
export { klinisReads, versionToEntry } from './reads.ts';
export type { Only } from './reads.ts';
export { klinisSearch } from './search.ts';
export type { EntryQuery, EntrySort, StatusMatch, TimeRange } from './search.ts';
export { ENTRY_NOT_FOUND, SELECT_ENTRY, toEntry } from './rows.ts';
export type { Row } from './rows.ts';
export { klinisStore } from './store.ts';
export type { Prepare, Target } from './store.ts';
export type { About } from './unmoved.ts';
export { BLOOD_PRESSURE, checkMeasurement, flagOf, VITAL_SIGNS, vitalByKey, vitalByLoinc } from './vital.ts';
export type { Flag, Measurement, VitalSign } from './vital.ts';
export { ensureCodes, generateClinical, SYNTH_CLINICS, SYNTH_CODES } from './synth.ts';
export { isChildSql } from './synth-catalogue.ts';
export type { ClinicalSynthOptions, ClinicalSynthResult } from './synth.ts';
