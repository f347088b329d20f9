// Sessions: Better Auth's secondary storage on Redis (keyed-hash names, sealed values), what the
// gateway asks about a session cookie and ending sessions, and the revocation messages that tell the
// gateway a session or grant ended.
export { createRevocations } from './revocations.ts';
export type { Revocations } from './revocations.ts';
export { createSessions } from './sessions.ts';
export type { AuthInternals, Sessions } from './sessions.ts';
export { createIdentityStorage, KEY_PREFIX } from './storage.ts';
export type { IdentityStorage } from './storage.ts';
