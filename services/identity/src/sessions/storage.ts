// Better Auth's secondary storage on Redis, without handing Redis anything worth stealing:
// - key names are a keyed hash (HMAC-SHA256) of Better Auth's key, because as shipped the key of a
//   session is its raw token and OTP keys contain the e-mail address;
// - values are sealed with AES-256-GCM (the session record holds the token and the user's address,
//   the active-sessions list holds tokens, verification records hold addresses), bound to their key;
// - counters (increment) stay plain integers: they carry no secret and must be atomic.
// It also honours a per-user "revoked before" marker, the fix that later Better Auth releases ship
// as `revoked-sessions-before-<user>`: a cached session created before the marker reads as absent,
// which closes the race between revoking every session of a user and a cache write in flight.
import type { SecondaryStorage } from '@better-auth/core/db';
import type { Redis } from 'ioredis';
import { hmac, isSealed, open, seal } from '../keys/index.ts';
import type { Keys } from '../keys/index.ts';

export const KEY_PREFIX = 'simrs:id:';

/** Same name as upstream's marker, so that a later core reading it sees the same thing. */
export const revokedBeforeKey = (userId: string) => `revoked-sessions-before-${userId}`;

const INCREMENT = `local v = redis.call('INCR', KEYS[1])
if v == 1 and tonumber(ARGV[1]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return v`;

export interface IdentityStorage extends SecondaryStorage {
  /** The Redis key name a Better Auth key is stored under. */
  keyName(key: string): string;
  /** Every cached session of `userId` created before `at` reads as absent from now on. */
  markUserSessionsRevoked(userId: string, at: number, ttlSeconds: number): Promise<void>;
}

interface CachedSession {
  session: { userId?: unknown; createdAt?: unknown };
  user?: unknown;
}

function asCachedSession(value: string): CachedSession | undefined {
  if (!value.startsWith('{"session"')) return undefined;
  try {
    const parsed = JSON.parse(value) as CachedSession;
    return parsed && typeof parsed.session === 'object' && parsed.session && 'user' in parsed ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function createIdentityStorage(redis: Redis, keys: Keys): IdentityStorage {
  const keyName = (key: string) => KEY_PREFIX + hmac(keys.redisKeyName, key);

  const decode = (name: string, stored: string | null): string | null => {
    if (stored === null) return null;
    if (!isSealed(stored)) return stored;
    // A value that does not open (tampered, or sealed under a rotated key) is treated as absent.
    return open(keys.redisValue, stored, name) ?? null;
  };

  async function revokedBefore(userId: string): Promise<number> {
    const name = keyName(revokedBeforeKey(userId));
    return Number(decode(name, await redis.get(name))) || 0;
  }

  async function guard(value: string | null): Promise<string | null> {
    if (value === null) return null;
    const cached = asCachedSession(value);
    if (!cached || typeof cached.session.userId !== 'string') return value;
    const marker = await revokedBefore(cached.session.userId);
    if (!marker) return value;
    const createdAt = new Date(cached.session.createdAt as string).getTime();
    return Number.isFinite(createdAt) && createdAt < marker ? null : value;
  }

  return {
    keyName,
    async get(key) {
      const name = keyName(key);
      return guard(decode(name, await redis.get(name)));
    },
    async getAndDelete(key) {
      const name = keyName(key);
      return guard(decode(name, await redis.getdel(name)));
    },
    async set(key, value, ttl) {
      const name = keyName(key);
      const sealed = seal(keys.redisValue, value, name);
      if (ttl && ttl > 0) await redis.set(name, sealed, 'EX', Math.ceil(ttl));
      else await redis.set(name, sealed);
    },
    async delete(key) {
      await redis.del(keyName(key));
    },
    async increment(key, ttl) {
      return Number(await redis.eval(INCREMENT, 1, keyName(key), String(Math.ceil(ttl || 0))));
    },
    async markUserSessionsRevoked(userId, at, ttlSeconds) {
      const name = keyName(revokedBeforeKey(userId));
      const previous = await revokedBefore(userId);
      await redis.set(name, String(Math.max(at, previous)), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
  };
}
