// Key material derived from the configured secrets (one key per purpose), the keyed hash, sealing of
// stored values, and a constant-time comparison: used wherever identity stores or checks a secret.
export { deriveKeys, hmac, isSealed, open, safeEqual, seal } from './keys.ts';
export type { Keys } from './keys.ts';
