// identity's own Better Auth plugin: the rules Better Auth does not ship.
// Before an endpoint runs: refuse password and sign-up routes; allow only `sign-in` OTPs; rate limits
// per client IP and per address on the send and verify endpoints; map update-session's free-form
// body into the declared JSON field. After it ran: complete the passkey authentication options, keep
// raw session tokens out of JSON bodies (the cookie is HttpOnly for a reason), security notices.
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, getIP, getSessionFromCtx } from 'better-auth/api';
import type { Logger } from '@simrs/platform/logger';
import type { Config } from '../config.ts';
import type { Directory } from '../directory/index.ts';
import { normalizeEmail } from '../directory/index.ts';
import type { Mailer } from '../mail/index.ts';
import { shapeAuthenticationOptions } from '../passkeys/index.ts';
import { LimiterUnavailable, RateLimited } from './limits.ts';
import type { Limits } from './limits.ts';

export interface PluginDeps {
  config: Config;
  limits: Limits;
  mailer: Mailer;
  directory: Directory;
  log: Logger;
}

export const SIGN_UP_DISABLED = {
  code: 'SIGN_UP_DISABLED',
  message: "Sign-up is disabled: accounts are created by a tenant administrator's invitation.",
} as const;

/** The free-form properties update-session keeps, in one declared JSON field of the session. */
export const PROPERTIES_FIELD = 'properties';
export const MAX_PROPERTIES_BYTES = 8 * 1024;
export const MAX_PROPERTIES_KEYS = 64;

/** Password routes: answered as disabled, so that callers get a clear reason. */
export const PASSWORD_PATHS = new Set([
  '/sign-in/email',
  '/sign-in/username',
  '/request-password-reset',
  '/reset-password',
  '/forget-password',
  '/change-password',
  '/set-password',
  '/verify-password',
  '/email-otp/request-password-reset',
  '/email-otp/reset-password',
  '/forget-password/email-otp',
]);
const SEND_PATHS: Record<string, 'otp' | 'magic-link'> = {
  '/email-otp/send-verification-otp': 'otp',
  '/sign-in/magic-link': 'magic-link',
};
/** JSON answers that carry the raw session token (as `token` or `session.token`). */
const TOKEN_BEARING = new Set([
  '/sign-in/email-otp',
  '/magic-link/verify',
  '/passkey/verify-authentication',
  '/passkey/verify-registration',
  '/get-session',
  '/update-session',
]);

export type Ctx = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function clientIp(ctx: Ctx): string {
  const source = ctx.request ?? ctx.headers;
  return (source && getIP(source, ctx.context.options)) || 'unknown';
}

export async function limited(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (err instanceof RateLimited)
      throw new APIError(
        'TOO_MANY_REQUESTS',
        { code: 'RATE_LIMITED', message: 'Too many requests. Try again later.' },
        { 'Retry-After': String(err.retryAfterSeconds) },
      );
    if (err instanceof LimiterUnavailable)
      throw new APIError('SERVICE_UNAVAILABLE', { code: 'UNAVAILABLE', message: 'Try again shortly.' });
    throw err;
  }
}

function withoutTokens(body: Record<string, unknown>): Record<string, unknown> {
  const { token: _token, ...rest } = body;
  if (isPlainObject(rest.session)) {
    const { token: _sessionToken, ...session } = rest.session;
    rest.session = session;
  }
  return rest;
}

/** The session as update-session answers it: its fields, and the kept properties beside them. */
function withProperties(session: Record<string, unknown>): Record<string, unknown> {
  const properties = isPlainObject(session[PROPERTIES_FIELD]) ? session[PROPERTIES_FIELD] : {};
  return { ...properties, ...session, [PROPERTIES_FIELD]: properties };
}

export function simrsPlugin(deps: PluginDeps) {
  const { config, limits, mailer, log } = deps;
  const rp = { id: config.PASSKEY_RP_ID, name: config.PASSKEY_RP_NAME };
  const accountUrl = `${config.PUBLIC_URL}/auth/account`;

  return {
    id: 'simrs',
    hooks: {
      before: [
        {
          matcher: (ctx) => PASSWORD_PATHS.has(ctx.path ?? '') || (ctx.path ?? '').startsWith('/reset-password/'),
          handler: createAuthMiddleware(async () => {
            throw new APIError('FORBIDDEN', {
              code: 'PASSWORD_SIGN_IN_DISABLED',
              message: 'Passwords are not used here: sign in with a passkey, a magic link or an e-mail code.',
            });
          }),
        },
        {
          matcher: (ctx) => (ctx.path ?? '').startsWith('/sign-up'),
          handler: createAuthMiddleware(async () => {
            throw new APIError('FORBIDDEN', { ...SIGN_UP_DISABLED });
          }),
        },
        {
          matcher: (ctx) => Object.hasOwn(SEND_PATHS, ctx.path ?? ''),
          handler: createAuthMiddleware(async (ctx) => {
            const body = ctx.body as unknown;
            if (!isPlainObject(body) || typeof body.email !== 'string') return; // the endpoint's validation answers
            if (ctx.path === '/email-otp/send-verification-otp' && body.type !== 'sign-in')
              throw new APIError('BAD_REQUEST', { code: 'UNSUPPORTED_OTP_TYPE', message: 'Only type "sign-in" is supported.' });
            if (!ctx.request) return; // a server-side call (an invitation) is not a client's request
            // Callers never choose what kind of mail a link goes out in.
            delete body.metadata;
            const kind = SEND_PATHS[ctx.path]!;
            await limited(() => limits.send(kind, clientIp(ctx), normalizeEmail(body.email as string)));
          }),
        },
        {
          matcher: (ctx) => ctx.path === '/sign-in/email-otp',
          handler: createAuthMiddleware(async (ctx) => {
            const body = ctx.body as unknown;
            if (!ctx.request || !isPlainObject(body) || typeof body.email !== 'string') return;
            await limited(() => limits.verifyOtp(clientIp(ctx), normalizeEmail(body.email as string)));
          }),
        },
        {
          matcher: (ctx) => ctx.path === '/magic-link/verify' || ctx.path === '/passkey/verify-authentication',
          handler: createAuthMiddleware(async (ctx) => {
            if (ctx.request) await limited(() => limits.verify(clientIp(ctx)));
          }),
        },
        {
          // The seed's body is an object of arbitrary properties; Better Auth keeps only declared
          // session fields. The properties go into one JSON field, merged over the ones kept so far.
          matcher: (ctx) => ctx.path === '/update-session',
          handler: createAuthMiddleware(async (ctx) => {
            const body = ctx.body as unknown;
            if (!isPlainObject(body)) return; // the endpoint answers BODY_MUST_BE_AN_OBJECT
            const incoming = { ...body };
            const current = await getSessionFromCtx(ctx);
            if (!current) return; // the endpoint answers 401
            const kept = (current.session as Record<string, unknown>)[PROPERTIES_FIELD];
            const merged = { ...(isPlainObject(kept) ? kept : {}), ...incoming };
            if (Object.keys(merged).length > MAX_PROPERTIES_KEYS || Buffer.byteLength(JSON.stringify(merged)) > MAX_PROPERTIES_BYTES)
              throw new APIError('PAYLOAD_TOO_LARGE', {
                code: 'SESSION_PROPERTIES_TOO_LARGE',
                message: `At most ${MAX_PROPERTIES_KEYS} properties and ${MAX_PROPERTIES_BYTES} bytes per session.`,
              });
            // In place: the endpoint validates this very object after the hooks ran.
            for (const key of Object.keys(body)) delete body[key];
            body[PROPERTIES_FIELD] = merged;
          }),
        },
      ],
      after: [
        {
          matcher: (ctx) => ctx.path === '/passkey/generate-authenticate-options',
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (!isPlainObject(returned) || returned instanceof Error) return;
            return ctx.json(shapeAuthenticationOptions(returned, rp));
          }),
        },
        {
          matcher: (ctx) => TOKEN_BEARING.has(ctx.path ?? ''),
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (!ctx.request || !isPlainObject(returned) || returned instanceof Error) return;
            const body = withoutTokens(returned);
            if (ctx.path === '/update-session' && isPlainObject(body.session)) body.session = withProperties(body.session);
            return ctx.json(body);
          }),
        },
        {
          matcher: (ctx) => ctx.path === '/revoke-other-sessions' || ctx.path === '/passkey/verify-registration',
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            const user = (ctx.context.session as { user?: { email?: string; name?: string } } | null)?.user;
            if (!isPlainObject(returned) || returned instanceof Error || !user?.email) return;
            const to = { email: user.email, name: user.name };
            if (ctx.path === '/revoke-other-sessions') mailer.securityNotice(to, 'other_sessions_revoked', { url: accountUrl });
            else
              mailer.securityNotice(to, 'passkey_added', {
                passkeyName: typeof returned.name === 'string' ? returned.name : undefined,
                url: accountUrl,
              });
            log.info({ path: ctx.path }, 'security notice sent');
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
