export { CallerRateLimit, clientKey, rateLimit } from './rate-limit.ts';
