// The Better Auth instance: passwordless sign-in (e-mail OTP, magic link, passkeys), sessions in Redis
// behind the keyed-hash storage (and in Postgres, which the OAuth provider needs), JWT/JWKS, and the
// OAuth 2.0 / OIDC provider with the device grant (SIMRS's rules for them in oauth.ts).
import { betterAuth } from 'better-auth';
import type { BetterAuthOptions } from 'better-auth';
import { APIError } from 'better-auth/api';
import { emailOTP, jwt, magicLink } from 'better-auth/plugins';
import type { JwtOptions } from 'better-auth/plugins';
import { passkey } from '@better-auth/passkey';
import { oauthDeviceAuthorization, oauthProvider } from '@better-auth/oauth-provider';
import type { Pool } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { COOKIE_PREFIX } from '@simrs/contracts/cookie';
import { AUTH_BASE_PATH } from '@simrs/contracts/oauth';
import { accountPlugin } from './account-api.ts';
import type { Admin } from './admin.ts';
import { OTP_ATTEMPTS, OTP_LENGTH } from './config.ts';
import type { Config } from './config.ts';
import type { Directory } from './directory.ts';
import { hmac } from './keys.ts';
import type { Keys } from './keys.ts';
import type { Limits } from './limits.ts';
import type { Mailer } from './mailer.ts';
import { createOAuth } from './oauth.ts';
import type { OAuthClients } from './oauth-clients.ts';
import { simrsPlugin } from './plugin.ts';
import type { RegistrationTokens } from './registration-tokens.ts';
import { cachedKeySet } from './signing-keys.ts';
import type { Revocations } from './revocations.ts';
import type { IdentityStorage } from './storage.ts';

export const BASE_PATH = AUTH_BASE_PATH;
/** Where the pages live (served by identity, proxied unchanged by the gateway). */
export const PAGES = { signIn: '/auth/sign-in', account: '/auth/account', consent: '/auth/consent', device: '/auth/device' };

export interface AuthDeps {
  config: Config;
  pool: Pool;
  storage: IdentityStorage;
  keys: Keys;
  directory: Directory;
  limits: Limits;
  mailer: Mailer;
  revocations: Revocations;
  registrationTokens: RegistrationTokens;
  oauthClients: OAuthClients;
  admin: () => Admin;
  log: Logger;
}

export const keySet = cachedKeySet();
/** EdDSA signing keys; the JWKS at /api/auth/jwks. Also used to rotate keys (signing-keys.ts). */
export const JWT_OPTIONS: JwtOptions = { jwks: { keyPairConfig: { alg: 'EdDSA', crv: 'Ed25519' } }, adapter: keySet, disableSettingJwtHeader: true };

/** Keyed hash of a magic-link token, the form Better Auth stores it in (also used for invitations). */
export const hashMagicLinkToken = (keys: Keys, token: string) => hmac(keys.magicLink, token);

export function authOptions(deps: AuthDeps) {
  const { config, directory, mailer, log } = deps;
  const https = config.PUBLIC_URL.startsWith('https:');
  const oauth = createOAuth(deps);

  /** The recipient, when the address belongs to an active user; nothing is sent otherwise. */
  async function activeRecipient(email: string) {
    const user = await directory.findUserByEmail(email);
    if (!user || !user.active) return undefined;
    const tenant = await directory.getTenant(user.tenantId);
    return { email: user.email, name: user.name, tenantName: tenant?.name };
  }

  return {
    appName: 'SIMRS',
    baseURL: config.PUBLIC_URL,
    basePath: BASE_PATH,
    secret: config.AUTH_SECRET,
    database: deps.pool,
    secondaryStorage: deps.storage,
    trustedOrigins: [config.PUBLIC_URL, ...config.CORS_ALLOWED_ORIGINS],
    telemetry: { enabled: false },
    emailAndPassword: { enabled: false },
    user: {
      additionalFields: {
        tenantId: { type: 'string', required: true, input: false },
        role: { type: 'string', required: true, input: false },
        active: { type: 'boolean', required: true, defaultValue: true, input: false },
      },
    },
    session: {
      expiresIn: config.SESSION_TTL_SECONDS,
      updateAge: config.SESSION_UPDATE_AGE_SECONDS,
      // The OAuth provider needs session rows; Redis stays the first place sessions are read from.
      storeSessionInDatabase: true,
      cookieCache: { enabled: false },
      additionalFields: { properties: { type: 'json', required: false, input: true } },
    },
    rateLimit: {
      enabled: true,
      storage: 'secondary-storage',
      window: 60,
      max: 300,
      // The send and verify endpoints have their own limits (limits.ts), per IP and per address.
      customRules: {
        '/sign-in/*': false,
        '/email-otp/*': false,
        '/magic-link/*': false,
        '/get-session': false,
      },
    },
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: https,
      defaultCookieAttributes: { httpOnly: true, secure: https, sameSite: 'lax' },
      ...(config.COOKIE_DOMAIN ? { crossSubDomainCookies: { enabled: true, domain: config.COOKIE_DOMAIN } } : {}),
      // The gateway sets X-Forwarded-For to exactly one address: the client's.
      ipAddress: { ipAddressHeaders: ['x-forwarded-for'] },
    },
    logger: {
      level: 'warn',
      log(level, message, ...args) {
        const err = args.find((a): a is Error => a instanceof Error);
        log[level]({ component: 'better-auth', ...(err ? { err } : {}) }, message);
      },
    },
    // Better Auth would print every refused request to the console; 4xx answers are routine here.
    onAPIError: {
      onError(error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status !== undefined && status < 500) log.debug({ status, code: (error as { body?: { code?: string } }).body?.code }, 'request refused');
        else log.error({ err: error }, 'auth request failed');
      },
    },
    databaseHooks: {
      user: {
        create: {
          // Users are created by tenant administrators (directory.ts), never by a sign-in flow.
          before: async () => {
            throw new APIError('FORBIDDEN', { code: 'SIGN_UP_DISABLED', message: 'Sign-up is disabled.' });
          },
        },
      },
      session: {
        create: {
          before: async (session) => {
            const user = await directory.findUserById(session.userId);
            if (!user?.active) throw new APIError('UNAUTHORIZED', { code: 'ACCOUNT_DISABLED', message: 'This account cannot sign in.' });
          },
        },
        delete: {
          after: async (session) => {
            await deps.revocations.publish({ sessionIds: [session.id] });
          },
        },
      },
    },
    plugins: [
      emailOTP({
        otpLength: OTP_LENGTH,
        expiresIn: config.OTP_TTL_SECONDS,
        allowedAttempts: OTP_ATTEMPTS,
        disableSignUp: true,
        storeOTP: { hash: async (otp: string) => hmac(deps.keys.otp, otp) },
        async sendVerificationOTP({ email, otp, type }) {
          if (type !== 'sign-in') return;
          const to = await activeRecipient(email);
          if (to) mailer.signInOtp(to, otp, config.OTP_TTL_SECONDS);
        },
      }),
      magicLink({
        expiresIn: config.MAGIC_LINK_TTL_SECONDS,
        disableSignUp: true,
        storeToken: { type: 'custom-hasher', hash: async (token: string) => hashMagicLinkToken(deps.keys, token) },
        async sendMagicLink({ email, url, token }, ctx) {
          const to = await activeRecipient(email);
          if (!to) {
            // Same answer as for a known address, no mail, and no live token left behind.
            await ctx?.context.internalAdapter.deleteVerificationByIdentifier(hashMagicLinkToken(deps.keys, token));
            return;
          }
          mailer.magicLink(to, landing(url, config.PUBLIC_URL), config.MAGIC_LINK_TTL_SECONDS);
        },
      }),
      passkey({
        rpID: config.PASSKEY_RP_ID,
        rpName: config.PASSKEY_RP_NAME,
        origin: config.PUBLIC_URL,
        // Discoverable credentials, so that conditional UI (autofill) can offer them.
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      }),
      jwt(JWT_OPTIONS),
      oauthProvider(oauth.providerOptions),
      oauthDeviceAuthorization(oauth.deviceOptions),
      simrsPlugin(deps),
      accountPlugin({ admin: deps.admin }),
      oauth.plugin,
    ],
  } satisfies BetterAuthOptions;
}

/** Links land on the account page; failures go back to the sign-in page with the error. */
export function landing(url: string, publicUrl: string): string {
  const link = new URL(url);
  const callback = link.searchParams.get('callbackURL');
  if (!callback || callback === '/') link.searchParams.set('callbackURL', `${publicUrl}${PAGES.account}`);
  if (!link.searchParams.has('errorCallbackURL')) link.searchParams.set('errorCallbackURL', `${publicUrl}${PAGES.signIn}`);
  return link.toString();
}

export function createAuth(deps: AuthDeps) {
  return betterAuth(authOptions(deps));
}

export type Auth = ReturnType<typeof createAuth>;
