// The notifier's errors and their gRPC statuses, in one place. Anything else a handler throws is a
// bug or a broken dependency: the caller gets INTERNAL with no detail, the log gets it all.
import { GrpcError, grpc } from '@simrs/proto/grpc';
import { InvalidArgument, NotFound, StoreUnavailable } from '../deliveries/index.ts';

export function toGrpcError(err: unknown): GrpcError | undefined {
  if (err instanceof InvalidArgument) return new GrpcError(grpc.status.INVALID_ARGUMENT, err.message);
  if (err instanceof NotFound) return new GrpcError(grpc.status.NOT_FOUND, err.message);
  if (err instanceof StoreUnavailable) return new GrpcError(grpc.status.UNAVAILABLE, err.message);
  return undefined;
}
