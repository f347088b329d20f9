export { CallerRateLimit, LIMIT_KEY_PREFIX, limitKeySecret } from './limiter.ts';
export { answerCooling, clientKey, rateLimit, rateLimitPerClient } from './rate-limit.ts';
export { refusedThenSpend } from './refused-then-spend.ts';
