// Patients (pasien): the procedures, the store other surfaces (FHIR) share, and what the seed and the
// test kit build patients with.
export { pasienHistory } from './history.ts';
export type { PasienVersion } from './history.ts';
export { makeNik, nikMismatch, parseNik } from './nik.ts';
export { pasienRouter } from './procedures.ts';
export {
  AGAMA,
  COLUMNS,
  createPasienInput,
  GOLONGAN_DARAH,
  isoDate,
  normalizePhone,
  pasienOutput,
  pasienPage,
  RHESUS,
  STATUS_PERKAWINAN,
  text,
  WRITABLE,
} from './schema.ts';
export type { CreatePasienInput, Pasien, PasienFieldName } from './schema.ts';
export { pasienSearch } from './search.ts';
export type { Condition, Range, SearchPage, SearchQuery, SearchSort } from './search.ts';
export { Archived, pasienStore, StaleVersion } from './store.ts';
export type { AuditExtra } from './store.ts';
export { syntheticPasien } from './synth.ts';
export { SELECT_PASIEN, toPasien } from './rows.ts';
