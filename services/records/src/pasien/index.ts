// Patients (pasien): the procedures, and what the seed and the test kit build patients with.
export { makeNik } from './nik.ts';
export { pasienRouter } from './procedures.ts';
export { COLUMNS, normalizePhone } from './schema.ts';
export type { CreatePasienInput, PasienFieldName } from './schema.ts';
export { syntheticPasien } from './synth.ts';
