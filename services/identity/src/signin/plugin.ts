// identity's own Better Auth plugin: the rules Better Auth does not ship.
// Before an endpoint runs: refuse password and sign-up routes; allow only `sign-in` OTPs; keep a sign-in
// link's return addresses on the site (refused in the request, put back in the link); rate limits
// per client IP and per address on the send and verify endpoints; map update-session's free-form
// body into the declared JSON field. After it ran: complete the passkey authentication options, keep
// raw session tokens out of JSON bodies (the cookie is HttpOnly for a reason), security notices.
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, getSessionFromCtx } from 'better-auth/api';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import type { Logger } from '@simrs/platform/logger';
import type { Config } from '../config.ts';
import type { Directory } from '../directory/index.ts';
import { normalizeEmail } from '../directory/index.ts';
import type { Mailer } from '../mail/index.ts';
import { shapeAuthenticationOptions } from '../passkeys/index.ts';
import { chosenLocale, returnAddressHooks, settleHandOff } from './email.ts';
import type { EmailSignInDeps } from './email.ts';
import { LimiterUnavailable, RateLimited } from './limits.ts';
import { clientIp, isPlainObject } from './request.ts';
export { clientIp } from './request.ts';
export type { Ctx } from './request.ts';
import type { Limits } from './limits.ts';

export interface PluginDeps extends EmailSignInDeps {
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
/**
 * Names a free-form property may not take: the session's own fields and its user's, and names that
 * mean something to JavaScript objects. The answer lists properties beside the session's fields (where
 * the seed puts them), so a property named like a field would shadow or mimic it.
 */
export const RESERVED_PROPERTY_NAMES = new Set([
  'id',
  'token',
  'userId',
  'expiresAt',
  'createdAt',
  'updatedAt',
  'ipAddress',
  'userAgent',
  'impersonatedBy',
  'activeOrganizationId',
  PROPERTIES_FIELD,
  'session',
  'user',
  'email',
  'emailVerified',
  'name',
  'image',
  'role',
  'tenantId',
  'active',
  'scopes',
  '__proto__',
  'constructor',
  'prototype',
]);

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

/**
 * The session as update-session answers it: its own fields, and the kept properties beside them (where
 * the seed puts them). A kept property named like a field (stored before names were checked) is left
 * out of the top level, never shadowing the field; it stays readable under `properties`.
 */
function withProperties(session: Record<string, unknown>): Record<string, unknown> {
  const properties = isPlainObject(session[PROPERTIES_FIELD]) ? session[PROPERTIES_FIELD] : {};
  const beside = Object.fromEntries(
    Object.entries(properties).filter(([k]) => !RESERVED_PROPERTY_NAMES.has(k) && !Object.hasOwn(session, k)),
  );
  return { ...beside, ...session, [PROPERTIES_FIELD]: properties };
}

type Hook = NonNullable<NonNullable<BetterAuthPlugin['hooks']>['before']>[number];

/** Password and sign-up routes answer a clear refusal instead of running. */
const refusals: Hook[] = [
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
];

/** Rate limits per client IP and per address on the send and verify endpoints; only `sign-in` OTPs. */
function rateLimits(limits: Limits): Hook[] {
  return [
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
  ];
}

/**
 * The seed's body is an object of arbitrary properties; Better Auth keeps only declared session
 * fields. The properties go into one JSON field, merged over the ones kept so far.
 */
const sessionProperties: Hook = {
  matcher: (ctx) => ctx.path === '/update-session',
  handler: createAuthMiddleware(async (ctx) => {
    const body = ctx.body as unknown;
    if (!isPlainObject(body)) return; // the endpoint answers BODY_MUST_BE_AN_OBJECT
    const incoming = { ...body };
    const current = await getSessionFromCtx(ctx);
    if (!current) return; // the endpoint answers 401
    const session = current.session as Record<string, unknown>;
    const reserved = Object.keys(incoming).filter((k) => RESERVED_PROPERTY_NAMES.has(k) || Object.hasOwn(session, k));
    if (reserved.length > 0)
      throw new APIError('BAD_REQUEST', {
        code: 'RESERVED_PROPERTY_NAME',
        message: `Not a free-form property name (a field of the session or its user): ${reserved.slice(0, 8).join(', ')}`,
      });
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
};

/** After a code or link was asked for: the hand-off to the outbox settled (signin/email.ts). */
function settleSends(deps: PluginDeps): Hook {
  return {
    matcher: (ctx) => Object.hasOwn(SEND_PATHS, ctx.path ?? ''),
    handler: createAuthMiddleware(async (ctx) => {
      const body = ctx.body as unknown;
      if (!isPlainObject(body) || typeof body.email !== 'string' || ctx.context.returned instanceof Error) return;
      await settleHandOff(deps, SEND_PATHS[ctx.path]!, ctx, body.email);
    }),
  };
}

/** The passkey authentication options completed for this relying party. */
function passkeyOptions(rp: { id: string; name: string }): Hook {
  return {
    matcher: (ctx) => ctx.path === '/passkey/generate-authenticate-options',
    handler: createAuthMiddleware(async (ctx) => {
      const returned = ctx.context.returned;
      if (!isPlainObject(returned) || returned instanceof Error) return;
      return ctx.json(shapeAuthenticationOptions(returned, rp));
    }),
  };
}

/** Raw session tokens kept out of JSON bodies (the cookie is HttpOnly for a reason). */
const tokensOut: Hook = {
  matcher: (ctx) => TOKEN_BEARING.has(ctx.path ?? ''),
  handler: createAuthMiddleware(async (ctx) => {
    const returned = ctx.context.returned;
    if (!ctx.request || !isPlainObject(returned) || returned instanceof Error) return;
    const body = withoutTokens(returned);
    if (ctx.path === '/update-session' && isPlainObject(body.session)) body.session = withProperties(body.session);
    return ctx.json(body);
  }),
};

/** A security notice to the user when other sessions were signed out or a passkey was added. */
function securityNotices({ mailer, log }: PluginDeps, accountUrl: string): Hook {
  return {
    matcher: (ctx) => ctx.path === '/revoke-other-sessions' || ctx.path === '/passkey/verify-registration',
    handler: createAuthMiddleware(async (ctx) => {
      const returned = ctx.context.returned;
      const user = (ctx.context.session as { user?: { email?: string; name?: string } } | null)?.user;
      if (!isPlainObject(returned) || returned instanceof Error || !user?.email) return;
      const to = { email: user.email, name: user.name, locale: chosenLocale(ctx) };
      // Stored in the outbox before the answer; the action itself is done either way, so a notice
      // that cannot be stored is logged rather than turned into an error for a completed action.
      const notice =
        ctx.path === '/revoke-other-sessions'
          ? mailer.securityNotice(to, 'other_sessions_revoked', { url: accountUrl })
          : mailer.securityNotice(to, 'passkey_added', {
              passkeyName: typeof returned.name === 'string' ? returned.name : undefined,
              url: accountUrl,
            });
      await notice.then(
        () => log.info({ path: ctx.path }, 'security notice queued'),
        (err: unknown) => log.error({ path: ctx.path, err: (err as Error).message }, 'security notice not queued'),
      );
    }),
  };
}

export function simrsPlugin(deps: PluginDeps) {
  const { config, limits } = deps;
  const rp = { id: config.PASSKEY_RP_ID, name: config.PASSKEY_RP_NAME };
  const accountUrl = `${config.PUBLIC_URL}${DASHBOARD.account}`;

  return {
    id: 'simrs',
    hooks: {
      // The return-address rules run before a send is counted.
      before: [...refusals, ...returnAddressHooks(config.PUBLIC_URL), ...rateLimits(limits), sessionProperties],
      after: [settleSends(deps), passkeyOptions(rp), tokensOut, securityNotices(deps, accountUrl)],
    },
  } satisfies BetterAuthPlugin;
}
