// SHIM: the procedures of a tRPC router by path, with their type and the router's config, as
// single-call.ts and procedure-call.ts, the metrics (labels only for known procedures) and the permission matrix's test
// (every procedure declared with its real kind) need them.
//
// Replaces: nothing public. tRPC 11 looks procedures up by path (callers, adapters) but offers no way
// to list a router's procedures or read its config; records needs both.
// Below the public API: `router._def.procedures` (each with `_def.type`) and `router._def._config`
// (tRPC 11.25.2).
// Gain: not a speed matter: there is no public API to go back to.
// Upstream: none found (no tRPC issue or PR for listing a router's procedures).
// Upgrade test: trpc-router.upgrade.test.ts (the router still carries both, in this shape).
import type { AnyTRPCRouter, transformTRPCResponse } from '@trpc/server';

export type RouterConfig = Parameters<typeof transformTRPCResponse>[0];

interface RouterInternals {
  _def: { _config: RouterConfig; procedures: Record<string, { _def: { type: string } } | undefined> };
}

/** Every procedure path of `router` with its type ('query', 'mutation', 'subscription'). */
export function procedureTypes(router: AnyTRPCRouter): ReadonlyMap<string, string> {
  const { procedures } = (router as unknown as RouterInternals)._def;
  return new Map(Object.entries(procedures).flatMap(([path, proc]) => (proc ? [[path, proc._def.type] as const] : [])));
}

/** The procedure at `path` (an own key of the router's table: no prototype member), or undefined. */
export function procedureAt(router: AnyTRPCRouter, path: string): { _def: { type: string } } | undefined {
  const { procedures } = (router as unknown as RouterInternals)._def;
  return Object.hasOwn(procedures, path) ? procedures[path] : undefined;
}

/** The config the router was made with (error formatter, transformer), as tRPC's response helpers take it. */
export function routerConfig(router: AnyTRPCRouter): RouterConfig {
  return (router as unknown as RouterInternals)._def._config;
}
