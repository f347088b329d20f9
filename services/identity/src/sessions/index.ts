// Sessions: Better Auth's secondary storage on Redis (keyed-hash names, sealed values), a user's
// sessions read from Postgres (the source of truth), what the gateway asks about a session cookie and
// ending sessions, and the revocation messages that tell the gateway a session or grant ended.
export { createRevocations } from './revocations.ts';
export type { Revocations } from './revocations.ts';
export { liveSessionRows, sessionRowsPlugin } from './rows.ts';
export type { SessionStore } from './rows.ts';
export { createSessions } from './sessions.ts';
export type { AuthInternals, Sessions } from './sessions.ts';
export { createIdentityStorage, KEY_PREFIX } from './storage.ts';
export type { IdentityStorage } from './storage.ts';
