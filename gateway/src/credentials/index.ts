export { authenticate } from './authenticate.ts';
export { BearerAuthenticator } from './bearer.ts';
export type { PrincipalCache } from './cache.ts';
export { throttleRefusedCredentials } from './refused.ts';
export { Revocations } from './revocations.ts';
export { SessionAuthenticator } from './session.ts';
