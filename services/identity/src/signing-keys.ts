// Rotating the key that signs access and ID tokens (operator action: `npm run admin -- rotate-signing-key`).
// The new key signs from now on; the previous ones stop signing but stay in the JWKS for Better Auth's
// grace period (30 days), so tokens they signed keep verifying until they expire. Resource servers
// (the gateway) fetch the JWKS again when a token names a key id they do not know.
import type { AuthContext } from '@better-auth/core';
import { createJwk } from 'better-auth/plugins';
import type { JwtOptions } from 'better-auth/plugins';

export async function rotateSigningKey(authContext: object, options: JwtOptions): Promise<{ keyId: string; retiredKeyIds: string[] }> {
  const context = authContext as AuthContext;
  const now = new Date();
  const previous = await context.adapter.findMany<{ id: string; expiresAt?: Date | null }>({ model: 'jwks' });
  const created = (await createJwk({ context } as unknown as Parameters<typeof createJwk>[0], options)) as { id: string };
  const retiredKeyIds: string[] = [];
  for (const key of previous) {
    if (key.expiresAt && new Date(key.expiresAt) <= now) continue;
    await context.adapter.update({ model: 'jwks', where: [{ field: 'id', value: key.id }], update: { expiresAt: now } });
    retiredKeyIds.push(key.id);
  }
  return { keyId: created.id, retiredKeyIds };
}
