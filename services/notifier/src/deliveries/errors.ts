// The errors a delivery request can end in; server/grpc-errors.ts gives each its gRPC status.

/** The request cannot be served as sent; nothing was stored. */
export class InvalidArgument extends Error {
  override name = 'InvalidArgument';
}

export class NotFound extends Error {
  override name = 'NotFound';
}

/** Postgres cannot be reached: nothing was stored, and the caller should try again. */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable';
}

// Connection-level failures (refused, reset, timed out, server shutting down or gone), as opposed
// to a query the database rejected, which is a bug and stays INTERNAL.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '25006', // a primary demoted by a failover refuses writes until the address points at the new one
  '3D000',
  '53300',
]);

export function isStoreUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return typeof message === 'string' && /timeout exceeded when trying to connect|Connection terminated/i.test(message);
}
