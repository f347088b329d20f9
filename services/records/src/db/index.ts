// The records database: the tenant-scoped access every procedure goes through, the application
// role's start-up check and the migrations. The development seed (seed.ts) is an entry of its own.
export { createAppPool, tenantDb } from './db.ts';
export type { Querier, TenantDb } from './db.ts';
export { migrateRecords } from './migrate.ts';
export { params } from './params.ts';
export { assertAppRole } from './roles.ts';
export { isUnavailable } from './unavailable.ts';
