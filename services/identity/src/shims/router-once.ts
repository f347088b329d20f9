// SHIM: Better Auth's `auth.handler` with its router built once.
//
// Replaces: `auth.handler`, which builds its whole endpoint table (every core endpoint made anew, with
// its schemas) and a new router for every request it answers (better-auth 1.7.6 to 1.7.25:
// `createBetterAuth` calls `router(handlerCtx, options)` per call).
// Below the public API: the per-request copy of the auth context that Better Auth's handler makes
// (better-auth/dist/auth/base.mjs, copied in `copyOf`), and a Proxy standing for that context in the
// router built once.
// Gain measured: identity CPU per token refresh (closed loop, 16 families), `auth.handler` 9.437 ms
// (median of 5 rounds, range 8.571-11.333) against 8.283 ms with this (range 7.615-14.179): 1.15 ms,
// about 12 % of identity's CPU per refresh (the median of the paired per-round differences is 0.92 ms,
// 9.8 %: at the rule's edge, on a machine at load average 17-19). `AB_BASE_REF=<this>
// AB_PATHS=refresh AB_ROUNDS=5 node bench/ab.ts`, 2026-11-25, stacks in turns.
// Upstream: better-auth/better-auth#10188 (router rebuilt per request; closed without a release that
// fixes it), PR #10201 (build the router once, open); PR #10287 closed unmerged.
// Upgrade test: router-once.test.ts (the same answers as Better Auth's own handler, request state
// kept apart) and router-once.upgrade.test.ts (Better Auth still rebuilds its router per request).
//
// The router and its endpoints keep the context they were built with, so they are built over a view
// (a Proxy) that forwards every read and write to the current request's copy, found through an
// AsyncLocalStorage; endpoint dispatch then spreads that copy into the endpoint's own context as
// before. Only for a static configuration: a fixed `baseURL` and trusted origins and providers given
// as lists, which Better Auth's handler would compute to the same values on every request (the
// context's own, computed when it was made). Any other configuration gets Better Auth's handler.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuthContext } from '@better-auth/core';
import { runWithAdapter } from '@better-auth/core/context';
import type { BetterAuthOptions } from 'better-auth';
import { router } from 'better-auth/api';

interface AuthLike {
  handler: (request: Request) => Promise<Response>;
  options: BetterAuthOptions;
  /** Typed loosely: each configuration's context type is its own; only AuthContext's fields are used. */
  $context: Promise<unknown>;
}

/** True when Better Auth's handler would give every request the context's own origins and providers. */
export function isStaticConfiguration(context: unknown): boolean {
  const ctx = context as AuthContext;
  const options = ctx.options;
  const origins = options.trustedOrigins;
  const providers = options.account?.accountLinking?.trustedProviders;
  return (
    typeof options.baseURL === 'string' &&
    options.baseURL !== '' &&
    (origins === undefined || (Array.isArray(origins) && origins.every((o) => ctx.trustedOrigins.includes(o)))) &&
    (providers === undefined || Array.isArray(providers))
  );
}

/** The per-request copy Better Auth's handler makes of the context (better-auth/dist/auth/base.mjs). */
const copyOf = (ctx: AuthContext): AuthContext =>
  Object.create(Object.getPrototypeOf(ctx) as object | null, Object.getOwnPropertyDescriptors(ctx)) as AuthContext;

/** Better Auth's handler with its router built once (see above). */
export function routerOnce(auth: AuthLike): (request: Request) => Promise<Response> {
  const current = new AsyncLocalStorage<AuthContext>();
  let built: Promise<((request: Request) => Promise<Response>) | undefined> | undefined;

  const build = async () => {
    const ctx = (await auth.$context) as AuthContext;
    if (!isStaticConfiguration(ctx)) return undefined;
    const now = () => current.getStore() ?? ctx;
    // Every trap reads or writes the current request's copy; the target stays empty (and extensible),
    // so reporting the copy's keys and (configurable) descriptors keeps the Proxy invariants.
    const view = new Proxy({} as AuthContext, {
      get: (_, key) => Reflect.get(now(), key),
      set: (_, key, value) => Reflect.set(now(), key, value),
      has: (_, key) => Reflect.has(now(), key),
      ownKeys: () => Reflect.ownKeys(now()),
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(now(), key);
        return descriptor && { ...descriptor, configurable: true };
      },
      defineProperty: (_, key, descriptor) => Reflect.defineProperty(now(), key, descriptor),
      deleteProperty: (_, key) => Reflect.deleteProperty(now(), key),
      getPrototypeOf: () => Reflect.getPrototypeOf(now()),
    });
    const { handler } = router(view, auth.options);
    return async (request: Request): Promise<Response> => {
      const handlerCtx = copyOf(ctx);
      // runWithAdapter is typed as wrapping the callback's result in one more promise; awaiting flattens it.
      return await current.run(handlerCtx, () => runWithAdapter(handlerCtx.adapter, () => handler(request)));
    };
  };

  return async (request) => {
    built ??= build();
    const handler = await built;
    return handler ? handler(request) : auth.handler(request);
  };
}
