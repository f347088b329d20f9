// The audit trail: its procedures, and the INSERT the other domains append to every access.
export { auditRouter } from './procedures.ts';
export { auditInsertFor, usedFilters } from './store.ts';
