// Key material derived from the configured secrets with HKDF (node:crypto), one key per purpose, so
// that no secret is used for two things and none is hand-rolled.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey, keyObject } from '@simrs/platform/seal';

export { isSealed, open, seal } from '@simrs/platform/seal';

export interface Keys {
  /** Keyed hash of Redis key names (Better Auth's keys and our rate-limit keys). */
  redisKeyName: Buffer;
  /** AES-256-GCM key for Redis values (sessions, verification records hold tokens and addresses). */
  redisValue: Buffer;
  /** Keyed hash of one-time passwords before Better Auth stores them. */
  otp: Buffer;
  /** Keyed hash of magic-link tokens before Better Auth stores them. */
  magicLink: Buffer;
  /** Keyed hash of OAuth authorization codes, refresh tokens and device codes before they are stored. */
  oauthToken: Buffer;
  /** AES-256-GCM key for mails waiting in the outbox (they hold codes, links and addresses). */
  mailOutbox: Buffer;
}

const derive = (secret: string, label: string): Buffer => deriveKey(secret, 'simrs-identity', label);

/** `redisKeySecret` defaults to AUTH_SECRET; the labels keep the derived keys independent anyway. */
export function deriveKeys(authSecret: string, redisKeySecret?: string): Keys {
  const redisSecret = redisKeySecret ?? authSecret;
  return {
    redisKeyName: derive(redisSecret, 'redis-key-name/v1'),
    redisValue: derive(redisSecret, 'redis-value/v1'),
    otp: derive(authSecret, 'otp/v1'),
    magicLink: derive(authSecret, 'magic-link/v1'),
    oauthToken: derive(authSecret, 'oauth-token/v1'),
    mailOutbox: derive(authSecret, 'mail-outbox/v1'),
  };
}

export function hmac(key: Buffer, value: string): string {
  return createHmac('sha256', keyObject(key)).update(value, 'utf8').digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
