// identity's schema and development data: migrations (also the Job's entry, `node src/db/migrate.ts`)
// and the demo tenants and users (`node src/db/seed.ts`).
export { migrateIdentity } from './migrate.ts';
export { seedDemoData } from './seed.ts';
