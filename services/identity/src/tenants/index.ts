// Tenants and their people: what a platform operator and tenant administrators may do (admin.ts, over
// gRPC for the CLI in cli.ts, and over HTTP for the account page in account-api.ts), and invitations.
export { accountPlugin } from './account-api.ts';
export { createAdmin } from './admin.ts';
export type { Admin } from './admin.ts';
export { createInviter } from './invitations.ts';
