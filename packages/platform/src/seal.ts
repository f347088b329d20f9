// Sealing of stored secrets with AES-256-GCM (node:crypto), one derived key per purpose: what a service
// keeps at rest that must stay unreadable to whoever can read its database or Redis (identity's Redis
// values and mail outbox, records' SATUSEHAT client secrets and platform tokens).
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** A 32-byte key for one purpose (`label`), derived from a configured secret with HKDF-SHA256. */
export function deriveKey(secret: string, salt: string, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from(salt, 'utf8'), Buffer.from(label, 'utf8'), 32));
}

/**
 * Each key as a KeyObject, made once: node:crypto checks a raw Buffer key anew on every createHmac and
 * createCipheriv (several times the cost of the HMAC itself for a short value), a KeyObject not.
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();
export function keyObject(key: Buffer): KeyObject {
  let made = keyObjects.get(key);
  if (!made) keyObjects.set(key, (made = createSecretKey(key)));
  return made;
}

const VALUE_PREFIX = 'e1.';

/** AES-256-GCM with a random nonce; `context` (where the value is stored) is bound as associated data. */
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

/**
 * Returns undefined for a value that was tampered with, sealed under another key or context, or not
 * spelled exactly as sealed.
 */
export function open(key: Buffer, sealed: string, context: string): string | undefined {
  if (!isSealed(sealed)) return undefined;
  const encoded = sealed.slice(VALUE_PREFIX.length);
  const raw = Buffer.from(encoded, 'base64url');
  if (raw.length < 12 + 16) return undefined;
  // The decoder skips what is not base64url and the unused bits of the last character, so another
  // spelling of the same bytes would open too: only the value as sealed does.
  if (raw.toString('base64url') !== encoded) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyObject(key), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
