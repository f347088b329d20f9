// identity's settings, parsed once at start (docs/settings.md has the table). A bad value stops the process
// with one line naming the variable; secrets are never echoed.
import { csv, flag, hostPort, loadConfig, logLevel, port, redisSettings, urlWith, z } from '@simrs/platform/config';
import { defaultAudience, defaultMcpResource } from '@simrs/contracts/oauth';

const seconds = (fallback: number, min = 1, max = 7 * 24 * 3600) => z.coerce.number().int().min(min).max(max).default(fallback);
const count = (fallback: number, max = 100_000) => z.coerce.number().int().min(1).max(max).default(fallback);
const secret = z.string().min(32, 'must be at least 32 characters');

/** An origin such as https://simrs.example.org (scheme, host, optional port; nothing else). */
const origin = urlWith('http', 'https').refine(
  (value) => {
    if (!URL.canParse(value)) return true; // urlWith reports it
    const url = new URL(value);
    return (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username;
  },
  { message: 'must be an origin such as https://simrs.example.org (no path, query or credentials)' },
);

export const schema = z
  .object({
    HOST: z.string().min(1).default('0.0.0.0'),
    HTTP_PORT: port(4001),
    GRPC_PORT: port(50051),
    DATABASE_URL: urlWith('postgres', 'postgresql'),
    REDIS_URL: redisSettings.REDIS_URL,
    REDIS_SENTINELS: redisSettings.REDIS_SENTINELS,
    REDIS_MASTER_NAME: redisSettings.REDIS_MASTER_NAME,
    NOTIFIER_GRPC: hostPort,
    PUBLIC_URL: origin,
    COOKIE_DOMAIN: z
      .string()
      .regex(/^\.?[a-z0-9.-]+$/i, 'must be a domain such as simrs.example.org')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    CORS_ALLOWED_ORIGINS: csv.pipe(z.array(origin)),
    AUTH_SECRET: secret,
    REDIS_KEY_SECRET: secret.optional().or(z.literal('').transform(() => undefined)),
    ADMIN_API_TOKEN: secret.optional().or(z.literal('').transform(() => undefined)),
    /** `production` makes ADMIN_API_TOKEN mandatory. */
    NODE_ENV: z.string().optional(),
    PASSKEY_RP_ID: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, 'must be a host name')
      .optional(),
    PASSKEY_RP_NAME: z.string().min(1).default('SIMRS'),
    MAGIC_LINK_TTL_SECONDS: seconds(300, 1, 3600),
    OTP_TTL_SECONDS: seconds(300, 1, 3600),
    INVITATION_TTL_SECONDS: seconds(72 * 3600, 60),
    SESSION_TTL_SECONDS: seconds(12 * 3600, 300, 30 * 24 * 3600),
    SESSION_UPDATE_AGE_SECONDS: seconds(3600, 60, 30 * 24 * 3600),
    OTP_SENDS_PER_ADDRESS_PER_HOUR: count(5, 100),
    OTP_SENDS_PER_ADDRESS_PER_DAY: count(20, 1000),
    MAGIC_LINK_SENDS_PER_ADDRESS_PER_HOUR: count(5, 100),
    SEND_LIMIT_PER_IP_PER_HOUR: count(300),
    VERIFY_LIMIT_PER_IP_PER_HOUR: count(600),
    ACCESS_TOKEN_TTL_SECONDS: seconds(900, 30, 24 * 3600),
    /** Access tokens of backend services (client credentials): SMART Backend Services allows at most five minutes. */
    BACKEND_ACCESS_TOKEN_TTL_SECONDS: seconds(300, 30, 300),
    /** How often each replica removes spent client assertions and abandoned device codes past their expiry (oauth/expiry-sweep.ts). */
    EXPIRED_ROWS_SWEEP_SECONDS: seconds(600, 1, 24 * 3600),
    /**
     * How access tokens are signed. EdDSA (Ed25519) by default: a tenth of RS256's signing CPU, which every
     * refresh pays, and SIMRS verifies its own tokens. RS256 for a resource server that verifies them
     * itself and accepts nothing else (RFC 9068 §4 requires RS256 support, not its use).
     */
    ACCESS_TOKEN_SIGNING_ALG: z.enum(['EdDSA', 'RS256', 'ES256']).default('EdDSA'),
    REFRESH_TOKEN_TTL_SECONDS: seconds(30 * 24 * 3600, 300, 90 * 24 * 3600),
    /** The API's resource identifier (RFC 8707), the `aud` of access tokens; default PUBLIC_URL + /api. */
    API_AUDIENCE: z
      .string()
      .url()
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The MCP server's resource identifier (RFC 8707); default PUBLIC_URL + /api/v1/mcp. */
    MCP_RESOURCE: z
      .string()
      .url()
      .optional()
      .or(z.literal('').transform(() => undefined)),
    REGISTRATION_TOKEN_TTL_SECONDS: seconds(24 * 3600, 60, 30 * 24 * 3600),
    DEVICE_CODE_TTL_SECONDS: seconds(600, 1, 3600),
    DEVICE_POLL_INTERVAL_SECONDS: seconds(5, 1, 60),
    DEVICE_VERIFY_LIMIT_PER_IP_PER_HOUR: count(300),
    DEVICE_VERIFY_LIMIT_PER_USER_PER_HOUR: count(30, 1000),
    TOKEN_LIMIT_PER_IP_PER_MINUTE: count(600, 10_000_000),
    MAIL_LOCALE: z.enum(['id', 'en']).default('id'),
    SEED_DEMO_DATA: flag(false),
    MIGRATE_ON_START: flag(true),
    LOG_LEVEL: logLevel,
  })
  .superRefine((env, ctx) => {
    // Behind a service-mesh sidecar every caller arrives from loopback: in production the admin
    // methods always need their token.
    if (env.NODE_ENV === 'production' && !env.ADMIN_API_TOKEN)
      ctx.addIssue({ code: 'custom', path: ['ADMIN_API_TOKEN'], message: 'required when NODE_ENV=production' });
    if (env.OTP_SENDS_PER_ADDRESS_PER_DAY < env.OTP_SENDS_PER_ADDRESS_PER_HOUR)
      ctx.addIssue({ code: 'custom', path: ['OTP_SENDS_PER_ADDRESS_PER_DAY'], message: 'must be at least OTP_SENDS_PER_ADDRESS_PER_HOUR' });
  })
  .transform((env) => {
    const publicUrl = new URL(env.PUBLIC_URL).origin;
    return {
      ...env,
      PUBLIC_URL: publicUrl,
      PASSKEY_RP_ID: env.PASSKEY_RP_ID ?? new URL(publicUrl).hostname,
      CORS_ALLOWED_ORIGINS: env.CORS_ALLOWED_ORIGINS.map((o) => new URL(o).origin),
      API_AUDIENCE: env.API_AUDIENCE ?? defaultAudience(publicUrl),
      MCP_RESOURCE: env.MCP_RESOURCE ?? defaultMcpResource(publicUrl),
    };
  });

export type Config = z.infer<typeof schema>;

/** Fixed by the seed (section 8): six digits, three attempts. */
export const OTP_LENGTH = 6;
export const OTP_ATTEMPTS = 3;

export function loadIdentityConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
