// Outpatient visits (kunjungan): the procedures, the patient's timeline, the store other surfaces (FHIR
// Encounter) share, and the rule that guards finishing.
export { klinisRouter, kunjunganRouter } from './procedures.ts';
export { kunjunganOutput, STATUS, timelinePage } from './schema.ts';
export type { Kunjungan, Status, TimelinePage } from './schema.ts';
export { visitSearch } from './search.ts';
export type { DayBound, VisitQuery } from './search.ts';
export { kunjunganStore, REGISTER_SQL } from './store.ts';
export { requirePrimaryDiagnosis, transitionStore } from './transitions.ts';
export { FROM_KUNJUNGAN, SELECT_KUNJUNGAN, toKunjungan } from './rows.ts';
