// Records' request metrics and span naming: calls, errors and latency per tRPC procedure (and per
// REST route of the integration prefix), the server span named after the procedure (`pasien.list`)
// with `simrs.tenant_id` and `simrs.outcome`, and the Postgres pool on /metrics. Procedure labels come
// from the router, so an unknown path can never become a label value.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { meter } from '@simrs/platform/metrics';
import { annotateRequest, outcomeOf } from '@simrs/platform/spans';
import { procedureTypes } from '../shims/index.ts';
import { openApiDocument } from './openapi.ts';
import { appRouter } from './router.ts';
import { recordServerDuration } from './tracing.ts';

const m = meter('records');
const calls = m.createCounter('records.procedure.calls', {
  description:
    'Procedure calls by procedure (or FHIR route), surface (trpc, rest, fhir, mcp) and outcome (ok, client_error, server_error).',
});
const duration = m.createHistogram('records.procedure.duration', {
  description: 'Time to answer a procedure call (or FHIR interaction), in seconds, by procedure and surface.',
  unit: 's',
  advice: { explicitBucketBoundaries: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] },
});

const known = new Set(procedureTypes(appRouter).keys());
const HTTP_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE']);

/** The REST routes (method and path template) the OpenAPI document declares, e.g. `GET /pasien/{id}`. */
const restRoutes = Object.entries(openApiDocument('').paths ?? {})
  .flatMap(([path, item]) => Object.keys(item ?? {}).map((method) => ({ method: method.toUpperCase(), template: path })))
  .filter((o) => HTTP_METHODS.has(o.method))
  .map((o) => ({ ...o, pattern: new RegExp(`^${o.template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`) }));

/** The declared route a REST call matched, or `{unknown}`: label values come from the router only. */
export function restRouteOf(method: string, pathname: string, prefix: string): string {
  const path = pathname.slice(prefix.length) || '/';
  const route = restRoutes.find((r) => r.method === method && r.pattern.test(path));
  return route ? `${method} ${prefix}${route.template}` : `${prefix}/{unknown}`;
}

/** The procedures a tRPC path names (`pasien.list` or a batch `a,b`); unknown ones are `{unknown}`. */
export function proceduresOf(pathname: string): string[] {
  const seen = procedureCache.get(pathname);
  if (seen) return seen;
  const found = parseProcedures(pathname);
  // Only paths naming known procedures are kept, so the cache is as small as the router.
  if (!found.includes('{unknown}') && procedureCache.size < 1_000) procedureCache.set(pathname, found);
  return found;
}

const procedureCache = new Map<string, string[]>();

function parseProcedures(pathname: string): string[] {
  let raw: string;
  try {
    raw = decodeURIComponent(pathname.slice('/trpc/'.length));
  } catch {
    return ['{unknown}'];
  }
  return raw.split(',').map((p) => (known.has(p) ? p : '{unknown}'));
}

/**
 * Names the server span now and counts the call when the response is sent. `surface` tells how the
 * procedure was reached; for REST the route is the normalised path under the integration prefix.
 */
export function observeCall(
  req: IncomingMessage,
  res: ServerResponse,
  call: { surface: 'trpc' | 'rest' | 'fhir' | 'mcp'; pathname: string; prefix: string; route?: string },
): void {
  const started = performance.now();
  const procedures = call.surface === 'trpc' ? proceduresOf(call.pathname) : [];
  // FHIR routes come labelled from the FHIR route table (fhir/routes.ts); tRPC calls need no REST route.
  const restRoute = call.surface === 'trpc' ? '' : (call.route ?? restRouteOf(req.method ?? 'GET', call.pathname, call.prefix));
  const name = call.surface === 'trpc' ? procedures.join(',') : restRoute;
  const route = call.surface === 'trpc' ? `/trpc/${procedures.join(',')}` : restRoute.replace(/^[A-Z]+ /, '');
  annotateRequest(req, { name, route, attributes: call.surface === 'trpc' ? { 'rpc.system': 'trpc', 'rpc.method': name } : {} });
  res.once('finish', () => {
    const seconds = (performance.now() - started) / 1000;
    const outcome = outcomeOf(res.statusCode);
    recordServerDuration(req, res.statusCode, route, seconds);
    const labels = call.surface === 'trpc' ? procedures : [restRoute];
    for (const procedure of labels) {
      calls.add(1, { procedure, surface: call.surface, outcome });
      duration.record(seconds, { procedure, surface: call.surface });
    }
  });
}
