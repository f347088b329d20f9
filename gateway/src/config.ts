import { csv, hostPort, loadConfig, logLevel, port, redisSettings, urlWith, z } from '@simrs/platform/config';
import { defaultAudience, defaultIssuer, defaultMcpResource, JWKS_PATH } from '@simrs/contracts/oauth';
import { sessionCookieName as cookieName } from '@simrs/contracts/cookie';

/** The gateway's settings (docs/settings.md lists them, with their defaults; a test keeps the two in step). */
export const schema = z.object({
  HOST: z.string().default('0.0.0.0'),
  GATEWAY_PORT: port(8080),
  /** /healthz, /readyz and /metrics, on a port of their own that the Ingress never routes to. */
  OPS_PORT: port(8081),
  /** The public origin browsers and integrations use, e.g. https://simrs.example.org. */
  PUBLIC_URL: urlWith('http', 'https').default('http://localhost:8080'),
  IDENTITY_URL: urlWith('http', 'https').default('http://127.0.0.1:4001'),
  IDENTITY_GRPC: hostPort.default('127.0.0.1:50051'),
  RECORDS_URL: urlWith('http', 'https').default('http://127.0.0.1:4002'),
  REDIS_URL: redisSettings.REDIS_URL,
  REDIS_SENTINELS: redisSettings.REDIS_SENTINELS,
  REDIS_MASTER_NAME: redisSettings.REDIS_MASTER_NAME,
  /** Shared with records only: signs the principal forwarded with each call. */
  PRINCIPAL_SECRET: z.string().min(32, 'must be at least 32 characters'),
  INTEGRATION_PREFIX: z
    .string()
    .regex(/^\/[\w/-]*[\w-]$/, 'must look like /api/v1')
    .default('/api/v1'),
  /** Browser origins allowed to call the API with credentials. PUBLIC_URL's origin is always allowed. */
  CORS_ALLOWED_ORIGINS: csv.pipe(z.array(urlWith('http', 'https'))),
  /** Proxies whose X-Forwarded-* headers are believed (Express "trust proxy" syntax: loopback, CIDRs). */
  TRUSTED_PROXIES: csv,
  /** How long a validated session is reused without asking identity (revocations evict at once). */
  SESSION_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(60),
  /** Request bodies above this answer 413 before reaching a service. */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** A request body must arrive within this, else 408 (a trickled body holds no upstream connection). */
  BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Rejected credentials (bad tokens, unknown sessions) per minute per client IP before 429; 0 disables. */
  CREDENTIAL_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** API requests per minute per user, client or (anonymous) IP, per gateway replica; 0 disables. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6_000),
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(1_000),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** OAuth access tokens: who issues them and for which resource; defaults derive from PUBLIC_URL. */
  OAUTH_ISSUER: urlWith('http', 'https').optional(),
  API_AUDIENCE: z.string().min(1).optional(),
  /** The MCP server's resource identifier (RFC 8707): what tokens for the MCP route must be issued for. */
  MCP_RESOURCE: z.string().min(1).optional(),
  /** MCP requests per minute per OAuth client (one agent, whoever it acts for), across replicas; 0 disables. */
  MCP_CALLS_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /** Where the signing keys are fetched (inside the cluster); defaults to identity's JWKS. */
  JWKS_URL: urlWith('http', 'https').optional(),
  LOG_LEVEL: logLevel,
});
export const config = loadConfig(schema);
export type Config = typeof config;

export const publicOrigin = new URL(config.PUBLIC_URL).origin;
export const oauth = {
  issuer: config.OAUTH_ISSUER ?? defaultIssuer(config.PUBLIC_URL),
  audience: config.API_AUDIENCE ?? defaultAudience(config.PUBLIC_URL),
  mcpResource: config.MCP_RESOURCE ?? defaultMcpResource(config.PUBLIC_URL, config.INTEGRATION_PREFIX),
  jwksUrl: config.JWKS_URL ?? `${new URL(config.IDENTITY_URL).origin}${JWKS_PATH}`,
};
/** Better Auth names the cookie with the __Secure- prefix when the public URL is https. */
export const sessionCookieName = cookieName(config.PUBLIC_URL);
export const allowedOrigins = new Set([publicOrigin, ...config.CORS_ALLOWED_ORIGINS.map((o) => new URL(o).origin)]);
