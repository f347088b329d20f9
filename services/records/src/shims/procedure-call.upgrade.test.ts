// Fails when a tRPC upgrade changes what procedure-call.ts copies from tRPC's caller: a procedure's
// `_def.middlewares` and `meta`, the options each middleware gets, how `next` merges the context and
// passes the input and raw input on, and how a throw or a missing result fails the call. Each call is
// made both ways, through callTRPCProcedure and through callProcedure, and must come out the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callTRPCProcedure, initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { callProcedure } from './procedure-call.ts';
import type { CallOptions } from './procedure-call.ts';

interface Ctx {
  user?: string;
  tenant?: string;
  seen?: string[];
}

const t = initTRPC.context<Ctx>().meta<{ tag: string }>().create({ isDev: false });

/** Every middleware notes the options it was given, so that the two ways can be compared key by key. */
const notes: string[] = [];
const note = t.middleware(async (opts) => {
  // tRPC's caller passes its own options on, the router among them; records' middlewares never read it.
  const keys = Object.keys(opts).filter((k) => k !== 'router');
  notes.push(`${keys.sort().join(',')} meta=${JSON.stringify(opts.meta)} input=${JSON.stringify(opts.input)}`);
  return opts.next();
});

const guarded = t.procedure.use(note).use(async ({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in first' });
  const result = await next({ ctx: { tenant: 'rs-demo' } });
  // As records' guard does: reads a failed result and returns it.
  if (!result.ok && result.error.code === 'CONFLICT')
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'rewritten', cause: result.error });
  return result;
});

const router = t.router({
  echo: guarded
    .meta({ tag: 'echo' })
    .input(z.object({ x: z.number().int() }))
    .use(note)
    .output(z.object({ x: z.number(), user: z.string().optional(), tenant: z.string().optional() }))
    .query(({ ctx, input }) => ({ x: input.x, user: ctx.user, tenant: ctx.tenant })),
  rawInput: t.procedure
    .use(({ next }) => next({ getRawInput: async () => ({ x: 7 }) }))
    .input(z.object({ x: z.number() }))
    .query(({ input }) => input.x),
  conflict: guarded.query(() => {
    throw new TRPCError({ code: 'CONFLICT', message: 'changed meanwhile' });
  }),
  bug: t.procedure.query(() => {
    throw new Error('column "x" does not exist');
  }),
  // A middleware that forgets to return next().
  noResult: t.procedure.use((async () => undefined) as never).query(() => 1),
  change: t.procedure.mutation(() => 1),
  nested: t.router({ deep: t.procedure.input(z.string()).query(({ input, path }) => `${path} ${input}`) }),
});

async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { data: await call() };
  } catch (err) {
    const e = err as TRPCError;
    const cause = e.cause as (Error & { code?: string }) | undefined;
    return {
      error: e.constructor.name,
      code: e.code,
      message: e.message,
      cause: cause && [cause.constructor.name, cause.message, cause.code],
    };
  }
}

async function bothWays(ctx: Ctx, path: string, raw: unknown, type: CallOptions['type'] = 'query') {
  const opts: CallOptions = { path, type, ctx, getRawInput: async () => raw, signal: undefined, batchIndex: 0 };
  notes.length = 0;
  const theirs = await outcome(() => callTRPCProcedure({ router, ...opts }));
  const theirNotes = [...notes];
  notes.length = 0;
  const ours = await outcome(() => callProcedure(router, opts));
  assert.deepEqual(ours, theirs);
  assert.deepEqual(notes, theirNotes, 'the options every middleware is given');
  return ours;
}

test("a procedure's middlewares run as tRPC's caller runs them", async () => {
  assert.deepEqual(await bothWays({ user: 'u-1' }, 'echo', { x: 3 }), { data: { x: 3, user: 'u-1', tenant: 'rs-demo' } });
  assert.equal(notes.length, 2, 'both noting middlewares ran');
  assert.deepEqual(await bothWays({}, 'echo', { x: 3 }), {
    error: 'TRPCError',
    code: 'UNAUTHORIZED',
    message: 'sign in first',
    cause: undefined,
  });
  assert.equal(((await bothWays({ user: 'u-1' }, 'echo', { x: 1.5 })) as { code: string }).code, 'BAD_REQUEST');
  assert.equal(((await bothWays({ user: 'u-1' }, 'echo', 'nope')) as { code: string }).code, 'BAD_REQUEST');
  assert.deepEqual(await bothWays({}, 'rawInput', { x: 1 }), { data: 7 });
  assert.deepEqual(await bothWays({}, 'nested.deep', 'a'), { data: 'nested.deep a' });
});

test('failures come out as tRPC gives them', async () => {
  assert.deepEqual(await bothWays({ user: 'u-1' }, 'conflict', undefined), {
    error: 'TRPCError',
    code: 'BAD_REQUEST',
    message: 'rewritten',
    cause: ['TRPCError', 'changed meanwhile', 'CONFLICT'],
  });
  assert.deepEqual(await bothWays({}, 'bug', undefined), {
    error: 'TRPCError',
    code: 'INTERNAL_SERVER_ERROR',
    message: 'column "x" does not exist',
    cause: ['Error', 'column "x" does not exist', undefined],
  });
  assert.equal(((await bothWays({}, 'noResult', undefined)) as { code: string }).code, 'INTERNAL_SERVER_ERROR');
  // What callProcedure leaves to tRPC: no such procedure, or not of that type.
  assert.equal(((await bothWays({}, 'nope', undefined)) as { code: string }).code, 'NOT_FOUND');
  assert.equal(((await bothWays({}, 'change', undefined)) as { code: string }).code, 'NOT_FOUND');
  assert.deepEqual(await bothWays({}, 'change', undefined, 'mutation'), { data: 1 });
});
