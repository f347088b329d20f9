// The Better Auth instance identity runs (and, for migrations, the options its schema follows).
export { authOptions, createAuth, JWT_OPTIONS, keySet, OWN_LIMITS } from './auth.ts';
export type { Auth, AuthDeps } from './auth.ts';
