// The FHIR R4 surface under <INTEGRATION_PREFIX>/fhir, as one route table (method, path, handler) read
// by the dispatcher and by the metrics' route labels. `metadata` and `.well-known/smart-configuration`
// are public; everything else needs the verified principal, then its scopes and role.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '@simrs/contracts/principal';
import type { TenantScope } from '../server/index.ts';
import {
  exportCancel,
  exportFile,
  exportPatient,
  exportPatients,
  exportStatus,
  exportSystem,
  FILE_PATH,
  STATUS_PATH,
} from './bulk-routes.ts';
import { capabilityStatement, smartConfiguration } from './capability.ts';
import { FHIR_TYPE } from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { historyEntry, readEntry, vreadEntry } from './clinical-read.ts';
import { searchEntries } from './clinical-search.ts';
import { createEntry, updateEntry } from './clinical-write.ts';
import type { Interaction } from './context.ts';
import { readEncounter, searchEncounter } from './encounter-interactions.ts';
import { everything } from './everything.ts';
import { create, history, read, remove, update, vread } from './interactions.ts';
import { FIELD_PATHS } from './mapping.ts';
import { FhirError, sendOutcome } from './outcome.ts';
import { search } from './search.ts';
import { baseUrlOf, negotiate, sendResource } from './wire.ts';

interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below `/fhir`; `{id}` and `{vid}` are path parameters. */
  path: string;
  handler: (ix: Interaction) => Promise<void>;
}

const ROUTES: Route[] = [
  // Before `/Patient/{id}`, which `/Patient/$export` would match too.
  { method: 'GET', path: '/$export', handler: exportSystem },
  { method: 'GET', path: '/Patient/$export', handler: exportPatients },
  { method: 'GET', path: '/Patient/{id}/$export', handler: exportPatient },
  { method: 'GET', path: `${STATUS_PATH}/{id}`, handler: exportStatus },
  { method: 'DELETE', path: `${STATUS_PATH}/{id}`, handler: exportCancel },
  { method: 'GET', path: `${FILE_PATH}/{id}/{vid}`, handler: exportFile },
  { method: 'GET', path: '/Patient', handler: search },
  { method: 'POST', path: '/Patient/_search', handler: search },
  { method: 'POST', path: '/Patient', handler: create },
  { method: 'GET', path: '/Patient/{id}', handler: read },
  { method: 'PUT', path: '/Patient/{id}', handler: update },
  { method: 'DELETE', path: '/Patient/{id}', handler: remove },
  { method: 'GET', path: '/Patient/{id}/_history', handler: history },
  { method: 'GET', path: '/Patient/{id}/_history/{vid}', handler: vread },
  { method: 'GET', path: '/Patient/{id}/$everything', handler: everything },
  { method: 'GET', path: '/Encounter', handler: searchEncounter },
  { method: 'GET', path: '/Encounter/{id}', handler: readEncounter },
  ...(Object.keys(FHIR_TYPE) as ServedKind[]).flatMap((kind): Route[] => {
    const type = FHIR_TYPE[kind];
    return [
      { method: 'GET', path: `/${type}`, handler: (ix) => searchEntries(ix, kind) },
      { method: 'POST', path: `/${type}/_search`, handler: (ix) => searchEntries(ix, kind) },
      { method: 'POST', path: `/${type}`, handler: (ix) => createEntry(ix, kind) },
      { method: 'GET', path: `/${type}/{id}`, handler: (ix) => readEntry(ix, kind) },
      { method: 'PUT', path: `/${type}/{id}`, handler: (ix) => updateEntry(ix, kind) },
      { method: 'GET', path: `/${type}/{id}/_history`, handler: (ix) => historyEntry(ix, kind) },
      { method: 'GET', path: `/${type}/{id}/_history/{vid}`, handler: (ix) => vreadEntry(ix, kind) },
    ];
  }),
];
const SERVED = new Set(['Patient', 'Encounter', ...Object.values(FHIR_TYPE)]);
const PUBLIC = ['/metadata', '/.well-known/smart-configuration'];

// `$` (operations such as $everything) is literal in a path, not the regular expression's end.
const patternOf = (path: string) => new RegExp(`^${path.replace(/\$/g, '\\$').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}/?$`);
const MATCHERS = ROUTES.map((r) => ({ ...r, pattern: patternOf(r.path) }));

/** The route label of a FHIR call (method and path template), from the table only. */
export function fhirRouteOf(method: string, path: string, prefix: string): string {
  if (method === 'GET' && PUBLIC.includes(path)) return `GET ${prefix}/fhir${path}`;
  const route = MATCHERS.find((r) => r.method === method && r.pattern.test(path));
  return route ? `${method} ${prefix}/fhir${route.path}` : `${prefix}/fhir/{unknown}`;
}

export interface FhirDeps {
  prefix: string;
  /** The public origin (PUBLIC_URL); without it the forwarded scheme and host make the base URL. */
  publicUrl?: string | undefined;
  maxBodyBytes: number;
  exportPollSeconds: number;
  createContext: (req: IncomingMessage) => Promise<{ principal: Principal | undefined; scope: TenantScope | undefined }>;
}

/** Serves `path` (below `/fhir`, without the query) with `search` (the query string, with or without `?`). */
export function createFhirHandler(deps: FhirDeps) {
  return async (req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<void> => {
    const query = new URLSearchParams(search);
    let pretty = false;
    try {
      // An export's file is NDJSON, whatever Accept says; everything else negotiates FHIR JSON.
      if (!path.startsWith(`${FILE_PATH}/`)) ({ pretty } = negotiate(req, query));
      const method = req.method ?? 'GET';
      const base = baseUrlOf(req, deps.publicUrl, deps.prefix);
      if (PUBLIC.includes(path)) {
        if (method !== 'GET')
          throw new FhirError(405, 'not-supported', `${method} is not allowed on ${path}`, { headers: { allow: 'GET' } });
        if (path === '/metadata') return sendResource(res, 200, capabilityStatement(base), pretty, { 'cache-control': 'no-cache' });
        res
          .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' })
          .end(JSON.stringify(smartConfiguration(base), null, pretty ? 2 : undefined));
        return;
      }
      const candidates = MATCHERS.filter((r) => r.pattern.test(path));
      if (candidates.length === 0) {
        const type = /^\/([A-Z][A-Za-z]+)/.exec(path)?.[1];
        throw new FhirError(
          404,
          'not-supported',
          type && !SERVED.has(type)
            ? `resource type ${type} is not supported: this server serves ${[...SERVED].join(', ')}`
            : 'no such FHIR endpoint',
        );
      }
      const route = candidates.find((r) => r.method === method);
      if (!route)
        throw new FhirError(405, 'not-supported', `${method} is not allowed here`, {
          headers: { allow: candidates.map((r) => r.method).join(', ') },
        });
      const ctx = await deps.createContext(req);
      if (!ctx.principal || !ctx.scope) throw new FhirError(401, 'login', 'sign in first: no valid credential');
      const groups = route.pattern.exec(path)?.groups ?? {};
      const decode = (v: string | undefined) => {
        try {
          return v === undefined ? undefined : decodeURIComponent(v);
        } catch {
          return v;
        }
      };
      const ix: Interaction = {
        req,
        res,
        query,
        base,
        principal: ctx.principal,
        scope: ctx.scope,
        pretty,
        maxBodyBytes: deps.maxBodyBytes,
        exportPollSeconds: deps.exportPollSeconds,
      };
      const id = decode(groups.id);
      const vid = decode(groups.vid);
      if (id !== undefined) ix.id = id;
      if (vid !== undefined) ix.vid = vid;
      await route.handler(ix);
    } catch (err) {
      sendOutcome(res, err, FIELD_PATHS, pretty);
    }
  };
}
