// Rotating the keys that sign access and ID tokens (operator action: `npm run admin -- rotate-signing-key`),
// one per algorithm, all together. The new keys sign from now on; the previous ones stop signing but stay in the JWKS for Better Auth's
// grace period (30 days), so tokens they signed keep verifying until they expire. Resource servers
// (the gateway) fetch the JWKS again when a token names a key id they do not know.
import type { AuthContext } from '@better-auth/core';
import { symmetricDecrypt, symmetricEncrypt } from 'better-auth/crypto';
import { createJwk } from 'better-auth/plugins';
import type { Jwk, JwtOptions } from 'better-auth/plugins';

type KeyAdapter = NonNullable<JwtOptions['adapter']>;
type EndpointContext = Parameters<NonNullable<KeyAdapter['getJwks']>>[0];

/**
 * JWT_OPTIONS sets `jwks.disablePrivateKeyEncryption` together with this adapter: the private keys stay
 * encrypted in Postgres exactly as Better Auth encrypts them (its symmetricEncrypt under the auth
 * secret, the same stored form), but the adapter encrypts them on the way in and decrypts each once per
 * process on the way out, so Better Auth gets them ready to import. Without this, Better Auth decrypted
 * the signing key (a SHA-256 of the secret on the crypto pool, then XChaCha20) for every token it signed.
 */
const decryptedKeys = new Map<string, string>();

async function withPlainKey(key: Jwk, ctx: EndpointContext): Promise<Jwk> {
  let plain = decryptedKeys.get(key.privateKey);
  if (plain === undefined) {
    plain = await symmetricDecrypt({ key: ctx.context.secretConfig, data: JSON.parse(key.privateKey) as string });
    decryptedKeys.set(key.privateKey, plain);
  }
  return { ...key, privateKey: plain };
}

/**
 * The key set as the token endpoint reads it, cached for a few seconds: Better Auth would otherwise read
 * every key from Postgres for each token it signs. Only signing at /oauth2/token uses the cache; the
 * published JWKS and token verification always read Postgres, so a new key is published at once. An
 * empty set is never cached, and creating or retiring a key here drops the cache.
 */
export function cachedKeySet(ttlMs = 10_000): KeyAdapter & { invalidate(): void } {
  let cached: { at: number; keys: Jwk[] } | undefined;
  return {
    async getJwks(ctx: EndpointContext) {
      const useCache = ctx.path === '/oauth2/token';
      if (useCache && cached && Date.now() - cached.at < ttlMs) return cached.keys;
      const stored = await ctx.context.adapter.findMany<Jwk>({ model: 'jwks' });
      const keys = await Promise.all(stored.map((key) => withPlainKey(key, ctx)));
      if (useCache && keys.length) cached = { at: Date.now(), keys };
      return keys;
    },
    async createJwk(webKey: Omit<Jwk, 'id'>, ctx: EndpointContext) {
      cached = undefined;
      const privateKey = JSON.stringify(await symmetricEncrypt({ key: ctx.context.secretConfig, data: webKey.privateKey }));
      const created = await ctx.context.adapter.create<Omit<Jwk, 'id'>, Jwk>({
        model: 'jwks',
        data: { ...webKey, privateKey, createdAt: new Date() },
      });
      // Better Auth signs with a key it has just created: it gets it as getJwks gives keys.
      return { ...created, privateKey: webKey.privateKey };
    },
    invalidate() {
      cached = undefined;
    },
  };
}

/**
 * A new key for every algorithm (the primary one and each of `keyPairConfigs`), then every older key
 * stops signing. `keyId` is the new primary key (RS256: default ID tokens; access tokens EdDSA by default).
 */
export async function rotateSigningKey(authContext: object, options: JwtOptions): Promise<{ keyId: string; retiredKeyIds: string[] }> {
  const context = authContext as AuthContext;
  const now = new Date();
  const previous = await context.adapter.findMany<{ id: string; expiresAt?: Date | null }>({ model: 'jwks' });
  const configs = [options.jwks?.keyPairConfig, ...(options.jwks?.keyPairConfigs ?? [])].filter((c) => c !== undefined);
  const keyIds: string[] = [];
  for (const keyPairConfig of configs) {
    const created = (await createJwk({ context } as unknown as Parameters<typeof createJwk>[0], {
      ...options,
      jwks: { ...options.jwks, keyPairConfig },
    })) as { id: string };
    keyIds.push(created.id);
  }
  const retiredKeyIds: string[] = [];
  for (const key of previous) {
    if (key.expiresAt && new Date(key.expiresAt) <= now) continue;
    await context.adapter.update({ model: 'jwks', where: [{ field: 'id', value: key.id }], update: { expiresAt: now } });
    retiredKeyIds.push(key.id);
  }
  return { keyId: keyIds[0]!, retiredKeyIds };
}

/**
 * At start: a live key for every algorithm, so that the published JWKS holds them all before the first
 * token (a relying party that cached the JWKS earlier would otherwise not find a key minted on first use).
 */
export async function ensureSigningKeys(authContext: object, options: JwtOptions): Promise<string[]> {
  const context = authContext as AuthContext;
  const now = new Date();
  const live = (await context.adapter.findMany<{ alg?: string | null; expiresAt?: Date | null }>({ model: 'jwks' })).filter(
    (k) => !k.expiresAt || new Date(k.expiresAt) > now,
  );
  const created: string[] = [];
  for (const keyPairConfig of [options.jwks?.keyPairConfig, ...(options.jwks?.keyPairConfigs ?? [])]) {
    if (!keyPairConfig || live.some((k) => k.alg === keyPairConfig.alg)) continue;
    await createJwk({ context } as unknown as Parameters<typeof createJwk>[0], { ...options, jwks: { ...options.jwks, keyPairConfig } });
    created.push(keyPairConfig.alg);
  }
  return created;
}
