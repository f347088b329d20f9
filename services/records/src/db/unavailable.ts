// Told apart in one place for two users: tenantDb discards a connection that failed this way, and
// the tRPC error mapper answers 503 (try again) instead of 500.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EPIPE',
  'ENETUNREACH',
]);

/** True for errors that mean "the database is not there right now" rather than "this query is wrong". */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  return (
    NETWORK_CODES.has(code) ||
    code.startsWith('08') || // connection exception
    code.startsWith('53') || // insufficient resources (too many connections, out of memory, disk full)
    ['57P01', '57P02', '57P03', '57014', '40001', '40P01', '55P03'].includes(code) || // shutdown, starting, timeout, conflicts
    // A primary demoted by a failover (a standby now, or read-only while it steps down) refuses writes:
    // the connection is dropped and the next one, through the primary's address, reaches the new primary.
    code === '25006' ||
    /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|not queryable|Client was closed/i.test(message)
  );
}

// Failures that prove a transaction did not commit, marked where that is known: no connection was
// had, or Postgres answered an error to a statement before COMMIT (it then skips the rest, COMMIT
// included). A connection lost after COMMIT was sent proves nothing: the commit may have happened.
const notCommitted = new WeakSet<object>();

export function markNotCommitted(err: unknown): void {
  if (typeof err === 'object' && err !== null) notCommitted.add(err);
}

export function provedNotCommitted(err: unknown): boolean {
  return typeof err === 'object' && err !== null && notCommitted.has(err);
}
