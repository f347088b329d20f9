// Key material derived from the configured secrets with HKDF (node:crypto), one key per purpose, so
// that no secret is used for two things and none is hand-rolled.
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

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

function derive(secret: string, label: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from('simrs-identity', 'utf8'), Buffer.from(label, 'utf8'), 32),
  );
}

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

/**
 * Each key as a KeyObject, made once: node:crypto checks a raw Buffer key anew on every createHmac and
 * createCipheriv (several times the cost of the HMAC itself for a short value), a KeyObject not.
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObject(key: Buffer): KeyObject {
  let made = keyObjects.get(key);
  if (!made) keyObjects.set(key, (made = createSecretKey(key)));
  return made;
}

export function hmac(key: Buffer, value: string): string {
  return createHmac('sha256', keyObject(key)).update(value, 'utf8').digest('base64url');
}

const VALUE_PREFIX = 'e1.';

/** AES-256-GCM with a random nonce; `context` (the stored key name) is bound as associated data. */
export function seal(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VALUE_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

export function isSealed(value: string): boolean {
  return value.startsWith(VALUE_PREFIX);
}

/** Returns undefined for a value that was tampered with or sealed under another key. */
export function open(key: Buffer, sealed: string, context: string): string | undefined {
  const raw = Buffer.from(sealed.slice(VALUE_PREFIX.length), 'base64url');
  if (raw.length < 12 + 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyObject(key), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
