import { flag, loadConfig, logLevel, port, urlWith, z } from '@simrs/platform/config';

export const config = loadConfig(
  z.object({
    HOST: z.string().default('0.0.0.0'),
    HTTP_PORT: port(4002),
    /** The application role: owns no table, cannot bypass row-level security. */
    DATABASE_URL: urlWith('postgres', 'postgresql'),
    /** The owner role, used only to migrate; defaults to DATABASE_URL for a single-role setup. */
    MIGRATION_DATABASE_URL: urlWith('postgres', 'postgresql').optional(),
    MIGRATE_ON_START: flag(true),
    /** Shared with the gateway only; signs the principal it forwards. */
    PRINCIPAL_SECRET: z.string().min(32, 'must be at least 32 characters'),
    INTEGRATION_PREFIX: z.string().regex(/^\/[\w/-]*[\w-]$/, 'must look like /api/v1').default('/api/v1'),
    MAX_BODY_BYTES: z.coerce.number().int().positive().default(256 * 1024),
    LOG_LEVEL: logLevel,
  }),
);
export type Config = typeof config;
