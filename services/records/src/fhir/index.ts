// FHIR R4 for Patient under <INTEGRATION_PREFIX>/fhir, mounted by server/server.ts; the mapping is
// also what the round-trip tests and the benchmark use.
export { fromPatient, toPatient } from './mapping.ts';
export { createFhirHandler, fhirRouteOf } from './routes.ts';
export type { FhirDeps } from './routes.ts';
export { startExportWorker } from './bulk-worker.ts';
export { sweepExports } from './bulk-sweep.ts';
