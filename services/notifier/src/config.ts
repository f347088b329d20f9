// The notifier's settings, parsed once at start (docs/settings.md has the table). A bad value stops the
// process with one line naming the variable, and never echoes the value (SMTP_URL holds a password).
import { flag, loadConfig, logLevel, port, urlWith, z } from '@simrs/platform/config';
import { TLS_MODES, parseAddress } from './mail/index.ts';
import type { SmtpSettings, TlsMode } from './mail/index.ts';

const ms = (fallback: number, min = 1) => z.coerce.number().int().min(min).default(fallback);

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * TLS mode when SMTP_TLS is not set: smtps:// means TLS from the first byte; smtp:// to a remote
 * host means STARTTLS is required (never fall back to clear text over a network); smtp:// to a
 * loopback host (the local mail catcher) means plain SMTP.
 */
export function defaultTlsMode(url: URL): TlsMode {
  if (url.protocol === 'smtps:') return 'implicit';
  return LOOPBACK.has(url.hostname) ? 'none' : 'starttls';
}

export function smtpSettings(rawUrl: string, tls: TlsMode | undefined, timeoutMs: number, dataEndTimeoutMs = 600_000): SmtpSettings {
  const url = new URL(rawUrl);
  const mode = tls ?? defaultTlsMode(url);
  const fallbackPort = mode === 'implicit' ? 465 : 587;
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : fallbackPort,
    ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { pass: decodeURIComponent(url.password) } : {}),
    tls: mode,
    timeoutMs,
    dataEndTimeoutMs,
  };
}

export const schema = z
  .object({
    GRPC_PORT: port(50052),
    HTTP_PORT: port(4003),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: urlWith('postgres', 'postgresql'),
    SMTP_URL: urlWith('smtp', 'smtps'),
    SMTP_TLS: z.enum(TLS_MODES).optional(),
    SMTP_TIMEOUT_MS: ms(20_000, 100),
    // RFC 5321 4.5.3.2.6 asks for 10 minutes: giving up sooner re-sends a mail the relay has taken.
    SMTP_DATA_END_TIMEOUT_MS: ms(600_000, 100),
    MAIL_FROM: z
      .string()
      .default('SIMRS <no-reply@simrs.localhost>')
      .refine((v) => parseAddress(v) !== undefined, { message: 'must be an address like "SIMRS <no-reply@example.org>"' }),
    MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
    MAIL_RETRY_BASE_MS: ms(2_000),
    MAIL_RETRY_MAX_MS: ms(300_000),
    MAIL_LEASE_MS: ms(60_000, 100),
    MAIL_POLL_MS: ms(1_000, 10),
    MAIL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    MAIL_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
    /** Migrate at start; the chart runs a migration Job instead and sets this to false. */
    MIGRATE_ON_START: flag(true),
    LOG_LEVEL: logLevel,
  })
  .superRefine((env, ctx) => {
    if (env.MAIL_RETRY_MAX_MS < env.MAIL_RETRY_BASE_MS)
      ctx.addIssue({ code: 'custom', path: ['MAIL_RETRY_MAX_MS'], message: 'must be at least MAIL_RETRY_BASE_MS' });
    // The lease must outlive any single send (bounded by SMTP_TIMEOUT_MS), or a second worker could
    // take the message over while the first is still talking to the SMTP peer.
    if (env.MAIL_LEASE_MS < 2 * env.SMTP_TIMEOUT_MS)
      ctx.addIssue({ code: 'custom', path: ['MAIL_LEASE_MS'], message: 'must be at least twice SMTP_TIMEOUT_MS' });
    if (env.SMTP_DATA_END_TIMEOUT_MS < env.SMTP_TIMEOUT_MS)
      ctx.addIssue({ code: 'custom', path: ['SMTP_DATA_END_TIMEOUT_MS'], message: 'must be at least SMTP_TIMEOUT_MS' });
  })
  .transform((env) => ({
    grpcPort: env.GRPC_PORT,
    httpPort: env.HTTP_PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    smtp: smtpSettings(env.SMTP_URL, env.SMTP_TLS, env.SMTP_TIMEOUT_MS, env.SMTP_DATA_END_TIMEOUT_MS),
    from: env.MAIL_FROM,
    retry: { maxAttempts: env.MAIL_MAX_ATTEMPTS, baseMs: env.MAIL_RETRY_BASE_MS, maxMs: env.MAIL_RETRY_MAX_MS },
    leaseMs: env.MAIL_LEASE_MS,
    pollMs: env.MAIL_POLL_MS,
    concurrency: env.MAIL_CONCURRENCY,
    retentionDays: env.MAIL_RETENTION_DAYS,
    migrateOnStart: env.MIGRATE_ON_START,
    logLevel: env.LOG_LEVEL,
  }));

export type Config = z.infer<typeof schema>;

export function config(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
