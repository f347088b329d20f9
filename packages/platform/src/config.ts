// Every service parses its environment once, at start, with zod, and stops with one readable line
// naming the bad variable instead of failing later in some unrelated place.
import { z } from 'zod';

export { z };

export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`);
  console.error(`configuration error: ${problems.join('; ')}`);
  process.exit(1);
}

/** A URL with one of the given schemes, e.g. postgres: for DATABASE_URL. */
export const urlWith = (...schemes: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `must be a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}` },
  );

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** host:port of a gRPC peer. */
export const hostPort = z.string().regex(/^[\w.-]+:\d{1,5}$|^\[[\d:a-fA-F]+\]:\d{1,5}$/, 'must be host:port');

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** Comma separated list, blanks dropped. */
export const csv = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** "true"/"1" and "false"/"0"; z.coerce.boolean would read "false" as true. */
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/**
 * Redis, for each service that uses it (RedisSettings in redis.ts): one server at REDIS_URL, or the
 * master that the Sentinels in REDIS_SENTINELS name REDIS_MASTER_NAME (REDIS_URL then gives only the
 * scheme, password and database).
 */
export const redisSettings = {
  REDIS_URL: urlWith('redis', 'rediss'),
  REDIS_SENTINELS: csv.pipe(z.array(hostPort)),
  REDIS_MASTER_NAME: z.string().min(1).default('simrs'),
};
