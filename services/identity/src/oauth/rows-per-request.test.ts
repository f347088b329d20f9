// Rows kept for the rest of one token request (rows-per-request.ts), against an adapter that counts
// its reads: never across requests, never on other endpoints, never past a write; and, given as Better
// Auth's database, the adapter every plugin reads through, whatever their order.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { betterAuth } from 'better-auth';
import type { BetterAuthPlugin } from 'better-auth';
import { runWithEndpointContext, runWithRequestState } from '@better-auth/core/context';
import type { DBAdapter } from '@better-auth/core/db/adapter';
import { keepRowsPerRequest } from './rows-per-request.ts';

type Row = Record<string, unknown> & { id: string };

/** An in-memory adapter over `tables` that counts every read per model. */
function countingAdapter(tables: Record<string, Row[]>) {
  const reads: Record<string, number> = {};
  const matches = (row: Row, where: Array<{ field: string; value: unknown }>) => where.every((w) => row[w.field] === w.value);
  const adapter = {
    id: 'counting',
    async findOne({ model, where }: { model: string; where: Array<{ field: string; value: unknown }> }) {
      reads[model] = (reads[model] ?? 0) + 1;
      const row = tables[model]?.find((r) => matches(r, where));
      return row ? structuredClone(row) : null;
    },
    async findMany({ model }: { model: string }) {
      return structuredClone(tables[model] ?? []);
    },
    async update({ model, where, update }: { model: string; where: Array<{ field: string; value: unknown }>; update: object }) {
      const row = tables[model]?.find((r) => matches(r, where));
      if (row) Object.assign(row, update);
      return row ?? null;
    },
    async incrementOne({ model, where, set }: { model: string; where: Array<{ field: string; value: unknown }>; set?: object }) {
      const row = tables[model]?.find((r) => matches(r, where));
      if (row) Object.assign(row, set);
      return row ?? null;
    },
    async create({ model, data }: { model: string; data: object }) {
      const row = { id: String(Math.random()), ...data };
      (tables[model] ??= []).push(row);
      return row;
    },
    async delete() {},
    async deleteMany() {
      return 0;
    },
    async updateMany() {
      return 0;
    },
    async consumeOne() {
      return null;
    },
    async count() {
      return 0;
    },
    async transaction<R>(callback: (trx: unknown) => Promise<R>) {
      return callback(adapter);
    },
  };
  return { adapter: adapter as unknown as DBAdapter, reads };
}

/** Runs `fn` as Better Auth runs an endpoint: in a fresh request state, in an endpoint context for `path`. */
const inRequest = <T>(path: string, fn: () => Promise<T>) =>
  runWithRequestState(new WeakMap(), () => runWithEndpointContext({ path } as never, fn));

const client = (clientId: string) => ({ model: 'oauthClient', where: [{ field: 'clientId', value: clientId }] });
const refresh = (token: string) => ({ model: 'oauthRefreshToken', where: [{ field: 'token', value: token }] });

function world() {
  const { adapter, reads } = countingAdapter({
    oauthClient: [{ id: '1', clientId: 'app', disabled: false, scopes: ['openid'], metadata: { alg: 'RS256' } }],
    oauthRefreshToken: [{ id: '2', token: 'hash', revoked: null }],
    user: [{ id: 'u', active: true }],
  });
  return { kept: keepRowsPerRequest(adapter), reads, adapter };
}

describe('rows kept per token request', () => {
  test('a client and a refresh token are read once per token request; each caller gets its own copy', async () => {
    const { kept, reads } = world();
    await inRequest('/oauth2/token', async () => {
      const first = await kept.findOne<Row>(client('app'));
      const second = await kept.findOne<Row>(client('app'));
      assert.deepEqual(first, second);
      assert.notEqual(first, second, 'not one shared object');
      (first!.scopes as string[]).push('simrs:write');
      (first!.metadata as Record<string, unknown>).alg = 'none';
      first!.disabled = true;
      assert.deepEqual(await kept.findOne<Row>(client('app')), second, 'a caller changing its copy changes nothing kept');
      await kept.findOne(refresh('hash'));
      await kept.findOne(refresh('hash'));
    });
    assert.deepEqual(reads, { oauthClient: 1, oauthRefreshToken: 1 });
  });

  test('nothing outlives its request: a client disabled after one request is seen disabled by the next', async () => {
    const { kept, reads, adapter } = world();
    await inRequest('/oauth2/token', () => kept.findOne(client('app')));
    await adapter.update({ model: 'oauthClient', where: [{ field: 'clientId', value: 'app' }], update: { disabled: true } });
    const next = await inRequest('/oauth2/token', () => kept.findOne<Row>(client('app')));
    assert.equal(next!.disabled, true);
    assert.equal(reads.oauthClient, 2);
  });

  test('a write to a table in the request drops what was kept of it (a rotation, a transaction), not of others', async () => {
    const { kept, reads } = world();
    await inRequest('/oauth2/token', async () => {
      await kept.findOne(client('app'));
      assert.equal((await kept.findOne<Row>(refresh('hash')))!.revoked, null);
      const where = [{ field: 'id', value: '2' }];
      await kept.incrementOne({ model: 'oauthRefreshToken', where, increment: {}, set: { revoked: 'now' } });
      assert.equal((await kept.findOne<Row>(refresh('hash')))!.revoked, 'now', 'the rotation is seen');
      await kept.create({ model: 'user', data: { active: true } });
      await kept.findOne(refresh('hash'));
      await kept.transaction(async () => undefined);
      await kept.findOne(refresh('hash'));
      await kept.findOne(client('app'));
    });
    assert.deepEqual(reads, { oauthClient: 2, oauthRefreshToken: 3 });
  });

  test('only at the token endpoint, only inside a request, only reads by the unique key', async () => {
    const { kept, reads } = world();
    await inRequest('/oauth2/revoke', async () => {
      await kept.findOne(client('app'));
      await kept.findOne(client('app'));
    });
    await kept.findOne(client('app'));
    await kept.findOne(client('app'));
    await inRequest('/oauth2/token', async () => {
      const byTwo = { model: 'oauthClient', where: [...client('app').where, { field: 'disabled', value: false }] };
      await kept.findOne(byTwo);
      await kept.findOne(byTwo);
      await kept.findOne({ ...client('app'), select: ['clientId'] });
      await kept.findOne({ ...client('app'), select: ['clientId'] });
      await kept.findOne({ model: 'user', where: [{ field: 'id', value: 'u' }] });
      await kept.findOne({ model: 'user', where: [{ field: 'id', value: 'u' }] });
    });
    assert.deepEqual(reads, { oauthClient: 8, user: 2 });
  });

  test('a failed read is not kept', async () => {
    const { adapter } = world();
    let calls = 0;
    const failing = {
      ...adapter,
      findOne: async () => {
        calls++;
        if (calls === 1) throw new Error('connection lost');
        return { id: '1', clientId: 'app' };
      },
    } as unknown as DBAdapter;
    const kept = keepRowsPerRequest(failing);
    await inRequest('/oauth2/token', async () => {
      await assert.rejects(kept.findOne(client('app')), /connection lost/);
      assert.equal((await kept.findOne<Row>(client('app')))!.clientId, 'app');
    });
    assert.equal(calls, 2);
  });

  test("given as Better Auth's database, every plugin reads through it, the first as much as the last", async () => {
    const { kept, reads } = world();
    const seen: DBAdapter[] = [];
    const capture = (id: string) => ({ id, init: (ctx) => void seen.push(ctx.adapter) }) satisfies BetterAuthPlugin;
    const auth = betterAuth({
      baseURL: 'http://localhost',
      secret: 'a-test-secret-that-is-long-enough-to-use',
      database: () => kept,
      telemetry: { enabled: false },
      plugins: [capture('first'), capture('last')],
    });
    const ctx = await auth.$context;
    assert.deepEqual(seen, [kept, kept]);
    assert.equal(ctx.adapter, kept);
    await inRequest('/oauth2/token', async () => {
      await seen[0]!.findOne(client('app'));
      await ctx.adapter.findOne(client('app'));
    });
    assert.deepEqual(reads, { oauthClient: 1 });
  });
});
