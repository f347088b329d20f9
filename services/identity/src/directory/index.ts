// Tenants and their users in Postgres, and the domain error of identity's own operations on them (and
// on sessions), which each surface maps to its own errors (server/grpc.ts, tenants/account-api.ts).
export { createDirectory, normalizeEmail } from './directory.ts';
export type { Directory, DirectoryUser, Tenant } from './directory.ts';
export { HTTP_STATUS, IdentityError } from './errors.ts';
export type { ErrorKind } from './errors.ts';
