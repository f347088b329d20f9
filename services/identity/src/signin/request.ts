// The request as Better Auth's hooks and callbacks see it, and the one client address the gateway put
// in X-Forwarded-For (the key of the per-IP limits); bodies and queries are read as plain objects.
import type { createAuthMiddleware } from 'better-auth/api';
import { getIP } from 'better-auth/api';

export type Ctx = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

export function clientIp(ctx: Ctx): string {
  const source = ctx.request ?? ctx.headers;
  return (source && getIP(source, ctx.context.options)) || 'unknown';
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
