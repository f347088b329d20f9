// The records HTTP surface: /healthz and /readyz, tRPC under /trpc. The gateway is the only caller.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { requestContext } from '@simrs/platform/context';
import { serveHealth } from '@simrs/platform/health';
import type { Checks } from '@simrs/platform/health';
import { PRINCIPAL_HEADER, REQUEST_ID_HEADER, verifyPrincipal } from '@simrs/platform/principal';
import type { Principal } from '@simrs/platform/principal';
import type { Config } from './config.ts';
import { log } from './log.ts';
import { appRouter } from './router.ts';

async function principalOf(header: string | string[] | undefined, secret: string): Promise<Principal | undefined> {
  if (typeof header !== 'string' || header === '') return undefined;
  try {
    return await verifyPrincipal(header, secret);
  } catch {
    log.warn('rejected an invalid principal header');
    return undefined;
  }
}

export function createRecordsServer(config: Config, checks: Checks): Server {
  const health = serveHealth(checks);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: config.MAX_BODY_BYTES,
    createContext: async ({ req }) => ({
      principal: await principalOf(req.headers[PRINCIPAL_HEADER], config.PRINCIPAL_SECRET),
      requestId: String(req.headers[REQUEST_ID_HEADER] ?? ''),
    }),
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ err: error.cause ?? error, path }, 'procedure failed');
    },
  });
  return createServer((req, res) => {
    if (health(req, res)) return;
    const requestId = String(req.headers[REQUEST_ID_HEADER] ?? '');
    requestContext.run({ requestId }, () => {
      if (req.url?.startsWith('/trpc/')) return trpc(req, res);
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
    });
  });
}
