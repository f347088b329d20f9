// Deliveries: validating a SendEmail request, the message store (stored before acknowledged) and the
// worker that leases, sends, retries and dead-letters.
export { InvalidArgument, NotFound, StoreUnavailable, isStoreUnavailable } from './errors.ts';
export { enqueue, findDelivery, stats } from './store.ts';
export type { State, StoreStats } from './store.ts';
export { validateSendEmail } from './validation.ts';
export { createWorker } from './worker.ts';
export type { DeadReason, DeliveryMetrics, Outcome } from './worker.ts';
