// Better Auth's `auth.handler` builds its whole endpoint table (every core endpoint made anew, with
// its schemas) and a new router for every request it answers (better-auth 1.7: `createBetterAuth`
// calls `router(handlerCtx, options)` per call; upstream better-auth/better-auth#10188, no fix
// released). Under the refresh bench that was about 8 % of identity's busy profile samples. This
// handler builds the router once and gives it, for each request, what Better Auth's own handler gives
// it: a fresh copy of the auth context, made the same way (its own object, the context's properties
// and prototype), so that nothing a request writes onto its context reaches another request.
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
