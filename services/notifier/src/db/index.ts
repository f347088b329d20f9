// The message store's plumbing: where the migrations are, and how background queries stay untraced.
export { migrateStore, migrationsDir } from './migrate.ts';
export { untraced } from './untraced.ts';
