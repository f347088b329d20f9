// The limit a gateway is measured against: a bare reverse proxy in its own process, node:http in front
// of an undici pool (the gateway's hop engine and pool settings; of the Node proxies tried on this
// machine, undici's was the fastest), with no framework, no credential check, no rate limit, no request
// id, no telemetry, no log.
// It forwards to records with the signed principal records requires, so records does the same work and
// gives the same answer as behind the gateway.
//
// The principal: the bench signs it once with the principal secret it gave the stack, for the same
// doctor, tenant, role and scopes as the other paths, and the proxy sets it on every request. That is
// what the gateway pays per request too: it mints a principal once per credential and reuses it for
// its lifetime. (The gateway's own header would do as well, but it lives a minute, shorter than the
// bench's run, and capturing it needs a listener between the gateway and records.)
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { PRINCIPAL_HEADER } from '@simrs/contracts/principal';
import { HOP_BY_HOP } from '@simrs/platform/hop-by-hop';

const READY = 'BARE_PROXY_PORT ';

function forwarded(headers: IncomingHttpHeaders, principal: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== PRINCIPAL_HEADER && name !== 'authorization' && name !== 'cookie')
      out[name] = value;
  }
  out[PRINCIPAL_HEADER] = principal;
  return out;
}

/** Serves on a free loopback port until killed; prints the port on stdout once listening. */
function serve(upstreamUrl: string, principal: string): void {
  const pool = new Pool(new URL(upstreamUrl).origin, { connections: 128, keepAliveTimeout: 10_000 });
  const server = createServer((req, res) => {
    pool
      .stream(
        {
          method: req.method as 'GET',
          path: req.url ?? '/',
          headers: forwarded(req.headers, principal),
          body: req.method === 'GET' ? null : req,
        },
        ({ statusCode, headers }) => {
          res.statusCode = statusCode;
          for (const name in headers) {
            const value = headers[name];
            if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
          }
          return res;
        },
      )
      .catch(() => {
        if (res.headersSent) res.destroy();
        else res.writeHead(503).end();
      });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.stdout.write(`${READY}${address.port}\n`);
  });
}

export interface BareProxy {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the proxy in a child process in front of `upstreamUrl`, setting `principal` on every request. */
export function startBareProxy(upstreamUrl: string, principal: string): Promise<BareProxy> {
  const child: ChildProcess = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { PATH: process.env.PATH ?? '', BARE_UPSTREAM: upstreamUrl, BARE_PRINCIPAL: principal },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => void stop().then(() => reject(new Error('the bare proxy did not start'))), 15_000);
    child.once('exit', (code) => reject(new Error(`the bare proxy exited (${code})`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const port = new RegExp(`${READY}(\\d+)`).exec(out)?.[1];
      if (!port) return;
      clearTimeout(timer);
      resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid!, stop });
    });
  });
}

if (import.meta.main) serve(process.env.BARE_UPSTREAM!, process.env.BARE_PRINCIPAL!);
