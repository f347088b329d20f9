// Outpatient visits (kunjungan): the procedures, the clinical history, the store other surfaces (FHIR
// Encounter) share, and the rule that guards finishing.
export { klinisRouter, kunjunganRouter } from './procedures.ts';
export { kunjunganOutput, STATUS } from './schema.ts';
export type { Kunjungan, Status } from './schema.ts';
export { visitSearch } from './search.ts';
export type { DayBound, VisitQuery } from './search.ts';
export { kunjunganStore, REGISTER_SQL } from './store.ts';
export { requirePrimaryDiagnosis, transitionStore } from './transitions.ts';
