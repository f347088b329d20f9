// Sign-in by e-mail: a one-time code (Better Auth's email-otp plugin) or a magic link (its magic-link
// plugin), sign-in only (no sign-up), mailed through the notifier to active users only. Codes and link
// tokens are stored as keyed hashes.
import { emailOTP, magicLink } from 'better-auth/plugins';
import { DASHBOARD, LANGUAGE_COOKIE, languageOf } from '@simrs/contracts/dashboard';
import { safeReturnPath } from '@simrs/contracts/return-path';
import { APIError, createAuthMiddleware } from 'better-auth/api';
import { OTP_ATTEMPTS, OTP_LENGTH } from '../config.ts';
import type { Config } from '../config.ts';
import type { Directory } from '../directory/index.ts';
import { normalizeEmail } from '../directory/index.ts';
import { hmac } from '../keys/index.ts';
import type { Keys } from '../keys/index.ts';
import type { Locale, Mailer } from '../mail/index.ts';
import { MailNotAccepted } from '../mail/index.ts';
import type { Limits } from './limits.ts';
import { clientIp, isPlainObject } from './request.ts';
import type { Ctx } from './request.ts';

export interface EmailSignInDeps {
  config: Config;
  keys: Keys;
  directory: Directory;
  mailer: Mailer;
  limits: Limits;
}

/** Keyed hash of a magic-link token, the form Better Auth stores it in (also used for invitations). */
export const hashMagicLinkToken = (keys: Keys, token: string) => hmac(keys.magicLink, token);

/** The return addresses Better Auth reads for a link, and where each goes when none (or a bad one) is given. */
const RETURN_FIELDS = { callbackURL: DASHBOARD.home, errorCallbackURL: DASHBOARD.signIn, newUserCallbackURL: DASHBOARD.home } as const;

/**
 * `value` as an absolute URL of the site when it is a path of it (safeReturnPath), else `fallback` there.
 * Absolute, because Better Auth decodes a link's parameters once more before redirecting, and no decoding
 * of what follows the origin can make it another origin.
 */
const onSite = (value: string | null | undefined, publicUrl: string, fallback: string) =>
  `${publicUrl}${safeReturnPath(value, publicUrl, fallback)}`;

/**
 * Links land on the dashboard (the site root) unless the request named another page of ours; a
 * failure (an expired or used link) goes back to the dashboard's sign-in page with the error.
 */
export function landing(url: string, publicUrl: string): string {
  const link = new URL(url);
  for (const [field, fallback] of Object.entries(RETURN_FIELDS))
    if (field !== 'newUserCallbackURL' || link.searchParams.has(field))
      link.searchParams.set(field, onSite(link.searchParams.get(field), publicUrl, fallback));
  return link.toString();
}

/**
 * A link's query as Better Auth will read it, its return addresses put back on the site: a link is the
 * mailed one, but its query can be changed by whoever holds it.
 */
export function keepLinkOnSite(query: Record<string, unknown>, publicUrl: string): void {
  for (const [field, fallback] of Object.entries(RETURN_FIELDS))
    if (query[field] !== undefined) query[field] = onSite(typeof query[field] === 'string' ? query[field] : undefined, publicUrl, fallback);
}

/** Better Auth's error codes for a refused return address, by field. */
const INVALID_RETURN_CODES: Record<string, string> = {
  callbackURL: 'INVALID_CALLBACK_URL',
  errorCallbackURL: 'INVALID_ERROR_CALLBACK_URL',
  newUserCallbackURL: 'INVALID_NEW_USER_CALLBACK_URL',
};

/**
 * Before-hooks keeping a sign-in link's return addresses on the site: a request naming one that leaves
 * it is refused, like Better Auth refuses others (its own check lets "/.//evil.example" through: one
 * slash, and the URL stays on the site until the dot segment is removed); a link is put back on it.
 */
export function returnAddressHooks(publicUrl: string) {
  return [
    {
      matcher: (ctx: { path?: string }) => ctx.path === '/sign-in/magic-link',
      handler: createAuthMiddleware(async (ctx) => {
        const field = isPlainObject(ctx.body) ? foreignReturnField(ctx.body, publicUrl) : undefined;
        if (field)
          throw new APIError('FORBIDDEN', { code: INVALID_RETURN_CODES[field], message: `Invalid ${field}: only a path of this site.` });
      }),
    },
    {
      matcher: (ctx: { path?: string }) => ctx.path === '/magic-link/verify',
      handler: createAuthMiddleware(async (ctx) => {
        // In place: the endpoint reads this very object after the hooks ran.
        if (isPlainObject(ctx.query)) keepLinkOnSite(ctx.query, publicUrl);
      }),
    },
  ];
}

/** The first return address of a link request that is not a path of the site, if any. */
export function foreignReturnField(body: Record<string, unknown>, publicUrl: string): string | undefined {
  return Object.keys(RETURN_FIELDS).find((field) => {
    const value = body[field];
    return value !== undefined && (typeof value !== 'string' || safeReturnPath(value, publicUrl, null) === null);
  });
}

/**
 * The recipient, when the address belongs to an active user; nothing is sent otherwise. The tenant is
 * looked up either way, so that a known address costs the same queries as an unknown one.
 */
async function activeRecipient(directory: Directory, email: string, ctx?: unknown) {
  const user = await directory.findUserByEmail(email);
  const tenant = await directory.getTenant(user?.tenantId ?? '');
  if (!user || !user.active) return undefined;
  return { email: user.email, name: user.name, tenantName: tenant?.name, locale: chosenLocale(ctx) };
}

/** The language chosen in the dashboard (its `simrs_lang` cookie) when the request carries it. */
export function chosenLocale(ctx: unknown): Locale | undefined {
  const c = ctx as Ctx | undefined;
  const cookie = (c?.request?.headers ?? c?.headers)?.get('cookie') ?? undefined;
  return cookie && new RegExp(`(?:^|;\\s*)${LANGUAGE_COOKIE}=`).test(cookie) ? languageOf(cookie) : undefined;
}

/**
 * What became of each sign-in request's mail. Better Auth runs the OTP sender "in the background or
 * awaited" and swallows what it throws, so a failure is recorded here and turned into the answer by
 * the plugin's after hook (settleHandOff).
 */
const handOffs = new WeakMap<Request, 'stored' | 'failed'>();

/** Stores the mail (or, for an address that gets none, runs the same statement). */
async function handOff(ctx: unknown, store: () => Promise<void>): Promise<void> {
  const request = (ctx as Ctx | undefined)?.request;
  try {
    await store();
    if (request) handOffs.set(request, 'stored');
  } catch (err) {
    if (!(err instanceof MailNotAccepted) || !request) throw err;
    handOffs.set(request, 'failed');
  }
}

/**
 * After a send endpoint ran: an address Better Auth answered without calling the sender (unknown, for
 * codes) gets the same lookups and statement as a known one, so both take the same time; a mail that
 * could not be stored answers 503 and gives back the send it was charged, so that a failed hand-off
 * never spends the address's budget.
 */
export async function settleHandOff(deps: EmailSignInDeps, kind: 'otp' | 'magic-link', ctx: Ctx, email: string): Promise<void> {
  const request = ctx.request;
  if (!request) return;
  if (!handOffs.has(request) && kind === 'otp') {
    await activeRecipient(deps.directory, email); // the same lookups; the address gets no mail
    await handOff(ctx, () => deps.mailer.signInOtp(undefined, '', deps.config.OTP_TTL_SECONDS));
  }
  if (handOffs.get(request) !== 'failed') return;
  await deps.limits.refundSend(kind, clientIp(ctx), normalizeEmail(email)).catch(() => {});
  throw new APIError(
    'SERVICE_UNAVAILABLE',
    { code: 'MAIL_UNAVAILABLE', message: 'The mail could not be accepted. Try again shortly.' },
    { 'Retry-After': '5' },
  );
}

export function otpPlugin(deps: EmailSignInDeps) {
  const { config, mailer } = deps;
  return emailOTP({
    otpLength: OTP_LENGTH,
    expiresIn: config.OTP_TTL_SECONDS,
    allowedAttempts: OTP_ATTEMPTS,
    disableSignUp: true,
    storeOTP: { hash: async (otp: string) => hmac(deps.keys.otp, otp) },
    async sendVerificationOTP({ email, otp, type }, ctx) {
      if (type !== 'sign-in') return;
      const to = await activeRecipient(deps.directory, email, ctx);
      await handOff(ctx, () => mailer.signInOtp(to, otp, config.OTP_TTL_SECONDS));
    },
  });
}

export function magicLinkPlugin(deps: EmailSignInDeps) {
  const { config, mailer } = deps;
  return magicLink({
    expiresIn: config.MAGIC_LINK_TTL_SECONDS,
    disableSignUp: true,
    storeToken: { type: 'custom-hasher', hash: async (token: string) => hashMagicLinkToken(deps.keys, token) },
    async sendMagicLink({ email, url, token }, ctx) {
      const to = await activeRecipient(deps.directory, email, ctx);
      // Same answer as for a known address, no mail, and no live token left behind.
      if (!to) await ctx?.context.internalAdapter.deleteVerificationByIdentifier(hashMagicLinkToken(deps.keys, token));
      await handOff(ctx, () => mailer.magicLink(to, landing(url, config.PUBLIC_URL), config.MAGIC_LINK_TTL_SECONDS));
    },
  });
}
