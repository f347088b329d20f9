// The notifier's transports as main.ts wires them: the gRPC handlers, the gRPC status of each error,
// and the metrics. The test kit (testkit.ts) is for tests only and is not exported here.
export { toGrpcError } from './grpc-errors.ts';
export { createMetrics } from './metrics.ts';
export type { Metrics } from './metrics.ts';
export { notifierHandlers } from './service.ts';
