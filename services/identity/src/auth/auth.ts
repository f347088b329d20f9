// The Better Auth instance: passwordless sign-in (e-mail OTP, magic link: signin/; passkeys: passkeys/),
// sessions in Redis behind the keyed-hash storage (and in Postgres, which the OAuth provider needs:
// sessions/), JWT/JWKS, and the OAuth 2.0 / OIDC provider with the device grant (SIMRS's rules for them
// in oauth/), plus the account page's endpoints (tenants/). Which plugins, in which order, with which
// settings: the folders own what each plugin does.
import { betterAuth } from 'better-auth';
import type { BetterAuthOptions } from 'better-auth';
import { APIError } from 'better-auth/api';
import { jwt } from 'better-auth/plugins';
import type { JwtOptions } from 'better-auth/plugins';
import { oauthDeviceAuthorization, oauthProvider } from '@better-auth/oauth-provider';
import type { Pool } from '@simrs/platform/db';
import type { Logger } from '@simrs/platform/logger';
import { tracesExported } from '@simrs/platform/spans';
import { COOKIE_PREFIX } from '@simrs/contracts/cookie';
import { AUTH_BASE_PATH } from '@simrs/contracts/oauth';
import type { Config } from '../config.ts';
import type { Directory } from '../directory/index.ts';
import type { Keys } from '../keys/index.ts';
import type { Mailer } from '../mail/index.ts';
import { cachedKeySet, createOAuth, keptRowsDatabase, SIGNING_KEY_CONFIGS } from '../oauth/index.ts';
import type { OAuthClients, RegistrationTokens } from '../oauth/index.ts';
import { passkeyPlugin } from '../passkeys/index.ts';
import { sessionRowsPlugin } from '../sessions/index.ts';
import type { IdentityStorage, Revocations } from '../sessions/index.ts';
import { magicLinkPlugin, otpPlugin, simrsPlugin } from '../signin/index.ts';
import type { Limits } from '../signin/index.ts';
import { accountPlugin } from '../tenants/index.ts';
import type { Admin } from '../tenants/index.ts';

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
/**
 * Signing keys, one per algorithm (EdDSA signs access tokens unless ACCESS_TOKEN_SIGNING_ALG says otherwise; RS256 signs ID tokens by default, EdDSA and
 * ES256 those of clients that chose them); the JWKS at /api/auth/jwks. Also used to rotate keys
 * (oauth/signing-keys.ts).
 */
export const JWT_OPTIONS: JwtOptions = {
  // Still encrypted at rest: keySet encrypts and decrypts them itself, once per key (oauth/signing-keys.ts).
  jwks: { ...SIGNING_KEY_CONFIGS, keyPairConfigs: [...SIGNING_KEY_CONFIGS.keyPairConfigs], disablePrivateKeyEncryption: true },
  adapter: keySet,
  disableSettingJwtHeader: true,
};

/**
 * The paths Better Auth's own rate limit leaves alone: every path identity offers (server/http.ts)
 * under /sign-in/, /email-otp/ and /magic-link/, /get-session and /device. Named one by one rather than as
 * `/sign-in/*` and the like: Better Auth compiles each wildcard rule into a RegExp on every request it
 * checks (about 0.5 % of identity's busy samples per token refresh); exact rules are compared as strings.
 * Only offered paths reach Better Auth over HTTP, and server/http.test.ts checks that every offered
 * path under those prefixes is listed here.
 */
export const OWN_LIMITS = [
  '/sign-in/magic-link',
  '/sign-in/email-otp',
  '/magic-link/verify',
  '/email-otp/send-verification-otp',
  // Refused as password paths (signin/plugin.ts) before anything else; no limit of Better Auth's either.
  '/sign-in/email',
  '/sign-in/username',
  '/email-otp/request-password-reset',
  '/email-otp/reset-password',
  '/get-session',
  // The dashboard's device page looks user codes up here over HTTP; identity limits the guessing per IP
  // and per user (oauth/hooks.ts). The device plugin's own rule (5 per code lifetime per IP) would stop
  // a whole ward behind one address after five look-ups.
  '/device',
];

/** Cookies: SIMRS's prefix, secure over https, shared across subdomains when configured. */
function cookieOptions(config: Config) {
  const https = config.PUBLIC_URL.startsWith('https:');
  return {
    cookiePrefix: COOKIE_PREFIX,
    useSecureCookies: https,
    defaultCookieAttributes: { httpOnly: true, secure: https, sameSite: 'lax' },
    ...(config.COOKIE_DOMAIN ? { crossSubDomainCookies: { enabled: true, domain: config.COOKIE_DOMAIN } } : {}),
    // The gateway sets X-Forwarded-For to exactly one address: the client's.
    ipAddress: { ipAddressHeaders: ['x-forwarded-for'] },
  } satisfies BetterAuthOptions['advanced'];
}

/** Better Auth's log lines through identity's logger; refused requests only at debug. */
function authLogging(log: Logger) {
  return {
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
        if (status !== undefined && status < 500)
          log.debug({ status, code: (error as { body?: { code?: string } }).body?.code }, 'request refused');
        else log.error({ err: error }, 'auth request failed');
      },
    },
  } satisfies Pick<BetterAuthOptions, 'logger' | 'onAPIError'>;
}

/** No sign-up; only active users get a session; sign-ins recorded; an ended session reaches the gateway. */
function databaseHooks({ directory, revocations }: AuthDeps) {
  return {
    user: {
      create: {
        // Users are created by tenant administrators (tenants/), never by a sign-in flow.
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
        // For tenant administrators: who has signed in, and when last (tenants/account-api.ts).
        after: async (session) => {
          await directory.recordSignIn(session.userId);
        },
      },
      delete: {
        after: async (session) => {
          await revocations.publish({ sessionIds: [session.id] });
        },
      },
    },
  } satisfies BetterAuthOptions['databaseHooks'];
}

export function authOptions(deps: AuthDeps) {
  const { config, log } = deps;
  const oauth = createOAuth(deps);

  return {
    appName: 'SIMRS',
    baseURL: config.PUBLIC_URL,
    basePath: AUTH_BASE_PATH,
    secret: config.AUTH_SECRET,
    // Better Auth's Kysely adapter over the pool, keeping the client and refresh-token rows for the rest
    // of a token request (oauth/rows-per-request.ts). Migrations take the pool itself (db/migrate.ts).
    database: keptRowsDatabase(deps.pool),
    secondaryStorage: deps.storage,
    trustedOrigins: [config.PUBLIC_URL, ...config.CORS_ALLOWED_ORIGINS],
    telemetry: { enabled: false },
    // Better Auth's own spans (each hook, handler and adapter call) only when spans are exported: not
    // recorded otherwise (@simrs/platform/telemetry), they would cost a span's work per step for nothing.
    experimental: { instrumentation: { enabled: tracesExported() } },
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
      // Every session has a row: the OAuth provider needs them, and they are the source of truth (a
      // session Redis forgot is still found, listed and ended: sessions/rows.ts). Redis is read first.
      storeSessionInDatabase: true,
      cookieCache: { enabled: false },
      additionalFields: { properties: { type: 'json', required: false, input: true } },
    },
    rateLimit: {
      enabled: true,
      storage: 'secondary-storage',
      window: 60,
      max: 300,
      // The send and verify endpoints have their own limits (signin/limits.ts), per IP and per address.
      customRules: Object.fromEntries(OWN_LIMITS.map((path) => [path, false])),
    },
    advanced: cookieOptions(config),
    ...authLogging(log),
    databaseHooks: databaseHooks(deps),
    plugins: [
      otpPlugin(deps),
      magicLinkPlugin(deps),
      passkeyPlugin(config),
      jwt(JWT_OPTIONS),
      oauthProvider(oauth.providerOptions),
      oauthDeviceAuthorization(oauth.deviceOptions),
      // Before simrsPlugin: revoke-other-sessions has ended every session before its notice is mailed.
      sessionRowsPlugin,
      simrsPlugin(deps),
      accountPlugin({ admin: deps.admin }),
      oauth.plugin,
      oauth.parPlugin,
    ],
  } satisfies BetterAuthOptions;
}

export function createAuth(deps: AuthDeps) {
  return betterAuth(authOptions(deps));
}

export type Auth = ReturnType<typeof createAuth>;
