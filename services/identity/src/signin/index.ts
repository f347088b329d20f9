// Signing in: by e-mail code or link (email.ts), the rate limits on sending and checking them
// (limits.ts), and identity's own Better Auth plugin with the rules Better Auth does not ship
// (plugin.ts: no passwords or sign-up, limits, session properties, no raw tokens in JSON, notices).
export { hashMagicLinkToken, magicLinkPlugin, otpPlugin } from './email.ts';
export { createLimits } from './limits.ts';
export type { Limits } from './limits.ts';
export { clientIp, limited, PASSWORD_PATHS, simrsPlugin, SIGN_UP_DISABLED } from './plugin.ts';
export type { Ctx } from './plugin.ts';
