// Sign-in by e-mail: a one-time code (Better Auth's email-otp plugin) or a magic link (its magic-link
// plugin), sign-in only (no sign-up), mailed through the notifier to active users only. Codes and link
// tokens are stored as keyed hashes.
import { emailOTP, magicLink } from 'better-auth/plugins';
import { OTP_ATTEMPTS, OTP_LENGTH } from '../config.ts';
import type { Config } from '../config.ts';
import type { Directory } from '../directory/index.ts';
import { hmac } from '../keys/index.ts';
import type { Keys } from '../keys/index.ts';
import type { Mailer } from '../mail/index.ts';
import { PAGES } from '../pages/index.ts';

export interface EmailSignInDeps {
  config: Config;
  keys: Keys;
  directory: Directory;
  mailer: Mailer;
}

/** Keyed hash of a magic-link token, the form Better Auth stores it in (also used for invitations). */
export const hashMagicLinkToken = (keys: Keys, token: string) => hmac(keys.magicLink, token);

/** Links land on the account page; failures go back to the sign-in page with the error. */
export function landing(url: string, publicUrl: string): string {
  const link = new URL(url);
  const callback = link.searchParams.get('callbackURL');
  if (!callback || callback === '/') link.searchParams.set('callbackURL', `${publicUrl}${PAGES.account}`);
  if (!link.searchParams.has('errorCallbackURL')) link.searchParams.set('errorCallbackURL', `${publicUrl}${PAGES.signIn}`);
  return link.toString();
}

/** The recipient, when the address belongs to an active user; nothing is sent otherwise. */
async function activeRecipient(directory: Directory, email: string) {
  const user = await directory.findUserByEmail(email);
  if (!user || !user.active) return undefined;
  const tenant = await directory.getTenant(user.tenantId);
  return { email: user.email, name: user.name, tenantName: tenant?.name };
}

export function otpPlugin(deps: EmailSignInDeps) {
  const { config, mailer } = deps;
  return emailOTP({
    otpLength: OTP_LENGTH,
    expiresIn: config.OTP_TTL_SECONDS,
    allowedAttempts: OTP_ATTEMPTS,
    disableSignUp: true,
    storeOTP: { hash: async (otp: string) => hmac(deps.keys.otp, otp) },
    async sendVerificationOTP({ email, otp, type }) {
      if (type !== 'sign-in') return;
      const to = await activeRecipient(deps.directory, email);
      if (to) mailer.signInOtp(to, otp, config.OTP_TTL_SECONDS);
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
      const to = await activeRecipient(deps.directory, email);
      if (!to) {
        // Same answer as for a known address, no mail, and no live token left behind.
        await ctx?.context.internalAdapter.deleteVerificationByIdentifier(hashMagicLinkToken(deps.keys, token));
        return;
      }
      mailer.magicLink(to, landing(url, config.PUBLIC_URL), config.MAGIC_LINK_TTL_SECONDS);
    },
  });
}
