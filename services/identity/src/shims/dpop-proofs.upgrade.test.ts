// Fails when a Better Auth upgrade changes what dpop-proofs.ts stands in for or patches: the OAuth
// provider's replay store reserves `dpop-proof:` ids through the internal adapter, whose
// `reserveVerificationValue` still refuses them with a secondary storage and no `storeInDatabase`
// (when it stops refusing, or a replay store can be configured, the shim can go).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { createDpopReplayStore } from 'better-auth/oauth2';
import type { IdentityStorage } from '../sessions/index.ts';
import { TEST_SECRET } from '../testing/index.ts';
import { reserveDpopProofsInRedis } from './dpop-proofs.ts';

test("the provider's replay store reserves dpop-proof: ids through the internal adapter", async () => {
  const seen: string[] = [];
  const store = createDpopReplayStore({
    reserveVerificationValue: async (data: { identifier: string }) => (seen.push(data.identifier), true),
  } as never);
  await store.reserve({ key: 'k1', expiresAt: new Date(Date.now() + 60_000), now: new Date() });
  assert.deepEqual(seen, ['dpop-proof:k1']);
});

test('Better Auth refuses the reservation without storeInDatabase; the patch answers dpop-proof: ids from storage', async () => {
  const kv = new Map<string, string>();
  const secondaryStorage = {
    get: async (key: string) => kv.get(key) ?? null,
    set: async (key: string, value: string) => void kv.set(key, value),
    delete: async (key: string) => void kv.delete(key),
    getAndDelete: async (key: string) => {
      const value = kv.get(key) ?? null;
      kv.delete(key);
      return value;
    },
    increment: async () => 1,
  };
  const auth = betterAuth({
    baseURL: 'http://identity.test',
    secret: TEST_SECRET,
    database: memoryAdapter({}),
    secondaryStorage,
    telemetry: { enabled: false },
    logger: { disabled: true },
  });
  const ctx = await auth.$context;
  const reservation = (identifier: string) => ({ identifier, value: identifier, expiresAt: new Date(Date.now() + 60_000) });
  await assert.rejects(ctx.internalAdapter.reserveVerificationValue(reservation('dpop-proof:a')), /storeInDatabase/);
  const counts = new Map<string, number>();
  const storage = {
    increment: async (key: string) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return counts.get(key)!;
    },
  } as unknown as IdentityStorage;
  reserveDpopProofsInRedis(ctx, storage);
  assert.equal(await ctx.internalAdapter.reserveVerificationValue(reservation('dpop-proof:a')), true);
  assert.equal(await ctx.internalAdapter.reserveVerificationValue(reservation('dpop-proof:a')), false, 'single use');
  await assert.rejects(ctx.internalAdapter.reserveVerificationValue(reservation('other:a')), /storeInDatabase/, 'others go to Better Auth');
});
