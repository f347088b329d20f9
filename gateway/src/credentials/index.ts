export { authenticate } from './authenticate.ts';
export { BearerAuthenticator } from './bearer.ts';
export { redisReplayStore } from './dpop.ts';
export type { PrincipalCache } from './cache.ts';
export { throttleRefusedCredentials } from './refused.ts';
export { Revocations } from './revocations.ts';
export { SessionAuthenticator } from './session.ts';
