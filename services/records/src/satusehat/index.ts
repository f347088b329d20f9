// SATUSEHAT sending: finished visits reach the national platform through an outbox (its rows written by
// the database in the transaction that finishes a visit) and a worker in each replica; the admin's
// procedures; the outbox metrics. It reads visits and clinical entries through their domains' faces.
export { satusehatRouter } from './procedures.ts';
export { useSatusehat } from './runtime.ts';
export { startSatusehatWorker } from './worker.ts';
export { observeOutbox } from './metrics.ts';
