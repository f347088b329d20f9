// The notifier's transports as main.ts wires them: the gRPC handlers, the gRPC status of each error,
// and the metrics.
export { toGrpcError } from './grpc-errors.ts';
export { createMetrics } from './metrics.ts';
export type { Metrics } from './metrics.ts';
export { notifierHandlers } from './service.ts';
