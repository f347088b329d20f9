import { flag, loadConfig, logLevel, port, redisSettings, urlWith, z } from '@simrs/platform/config';

export const configSchema = z
  .object({
    HOST: z.string().default('0.0.0.0'),
    HTTP_PORT: port(4002),
    /** The application role (e.g. records_app): owns no table, cannot bypass row-level security. */
    DATABASE_URL: urlWith('postgres', 'postgresql'),
    /** The owner role: migrations (and the dev seed) only. Required when MIGRATE_ON_START is true. */
    MIGRATION_DATABASE_URL: urlWith('postgres', 'postgresql').optional(),
    MIGRATE_ON_START: flag(true),
    DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    /** Upper bound for one statement; a slow query answers 503 instead of holding a connection. */
    DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    /** Shared with the gateway only; signs the principal it forwards. Also keys the list cursors. */
    PRINCIPAL_SECRET: z.string().min(32, 'must be at least 32 characters'),
    /** The public origin (the gateway's PUBLIC_URL): FHIR's absolute links and SMART discovery. Unset: the forwarded host. */
    PUBLIC_URL: urlWith('http', 'https').optional(),
    /**
     * The MCP server's resource identifier (RFC 8707), as the gateway and identity are given it: the 403
     * asking an agent for more scope names its metadata. Unset: the public origin + prefix + /mcp.
     */
    MCP_RESOURCE: z
      .string()
      .url()
      .optional()
      .or(z.literal('').transform(() => undefined)),
    INTEGRATION_PREFIX: z
      .string()
      .regex(/^\/[\w/-]*[\w-]$/, 'must look like /api/v1')
      .default('/api/v1'),
    MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(256 * 1024),
    /** Bulk Data export: resources per page (one chunk of output, one transaction). */
    EXPORT_PAGE_SIZE: z.coerce.number().int().min(1).max(10_000).default(1_000),
    /**
     * Bulk Data export: the threads a hospital's export is written on, each with its share of every
     * type's ids and two database connections of its own. Each lane costs a core and memory
     * (docs/benchmarks.md, Bulk Data export): one fits the chart's pod; more where its limits are raised.
     */
    EXPORT_LANES: z.coerce.number().int().min(1).max(4).default(1),
    /** Bulk Data export: the least time between two status polls of a job (closer polls answer 429). */
    EXPORT_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(600).default(2),
    /** Bulk Data export: how long a finished job's files stay downloadable. */
    EXPORT_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .default(24 * 3600),
    /** Bulk Data export: how often a replica looks for a job to work on, or whose lease lapsed. */
    EXPORT_WORKER_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
    /**
     * Bulk Data export: chunks deleted per statement when a removed or expired job's files go. A chunk
     * is one page of output (EXPORT_PAGE_SIZE resources); a batch must delete well within DB_STATEMENT_TIMEOUT_MS.
     */
    EXPORT_REMOVE_BATCH: z.coerce.number().int().min(1).max(10_000).default(200),
    /** Bulk Data export: a replica's hold on a job, renewed every page; a replica that died loses it after this. */
    EXPORT_LEASE_SECONDS: z.coerce.number().int().min(2).max(600).default(30),
    LOG_LEVEL: logLevel,
    /** Shared across replicas: SATUSEHAT's access tokens, cached per hospital. Unset: nothing is sent to SATUSEHAT. */
    REDIS_URL: redisSettings.REDIS_URL.optional(),
    /** With Sentinels (as the gateway and identity): the master is the one they name, not REDIS_URL's host. */
    REDIS_SENTINELS: redisSettings.REDIS_SENTINELS,
    REDIS_MASTER_NAME: redisSettings.REDIS_MASTER_NAME,
    SATUSEHAT_STAGING_URL: urlWith('http', 'https').default('https://api-satusehat-stg.dto.kemkes.go.id'),
    SATUSEHAT_PRODUCTION_URL: urlWith('http', 'https').default('https://api-satusehat.kemkes.go.id'),
    /** Seals the hospitals' SATUSEHAT client secrets at rest and the tokens in Redis. Unset: derived from PRINCIPAL_SECRET. */
    SATUSEHAT_SEAL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    SATUSEHAT_WORKER: flag(true),
    SATUSEHAT_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
    SATUSEHAT_POLL_MS: z.coerce.number().int().min(10).default(1_000),
    SATUSEHAT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    SATUSEHAT_LEASE_MS: z.coerce.number().int().min(1_000).default(120_000),
    SATUSEHAT_RETRY_BASE_MS: z.coerce.number().int().min(10).default(1_000),
    SATUSEHAT_RETRY_MAX_MS: z.coerce.number().int().min(10).default(300_000),
    /** After a failed token request, the next one waits this long (SATUSEHAT asks for one a minute). */
    SATUSEHAT_TOKEN_RETRY_MS: z.coerce.number().int().min(100).default(60_000),
  })
  .refine((env) => !env.MIGRATE_ON_START || env.MIGRATION_DATABASE_URL !== undefined, {
    path: ['MIGRATION_DATABASE_URL'],
    message: 'required while MIGRATE_ON_START is true (the owner role migrates; DATABASE_URL is the application role)',
  });

export type Config = z.infer<typeof configSchema>;

export const loadRecordsConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
