export { CallerRateLimit, LIMIT_KEY_PREFIX, limitKeySecret } from './limiter.ts';
export { clientKey, rateLimit } from './rate-limit.ts';
