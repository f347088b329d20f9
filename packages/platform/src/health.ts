// /healthz: the process is alive (never touches a dependency, so a slow database cannot get a healthy
// pod killed). /readyz: every dependency the service cannot work without answers within a second.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { prometheus } from './telemetry.ts';

export type Checks = Record<string, () => Promise<unknown>>;

const CHECK_TIMEOUT_MS = 1_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e: unknown) => (clearTimeout(timer), reject(e)),
    );
  });
}

export async function runChecks(checks: Checks): Promise<{ ready: boolean; checks: Record<string, 'ok' | 'down'> }> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((n) => withTimeout(Promise.resolve().then(checks[n]), CHECK_TIMEOUT_MS)));
  const out: Record<string, 'ok' | 'down'> = {};
  names.forEach((n, i) => (out[n] = results[i]!.status === 'fulfilled' ? 'ok' : 'down'));
  return { ready: results.every((r) => r.status === 'fulfilled'), checks: out };
}

let draining = false;
/** After this, /readyz answers 503 so that load balancers stop sending work while we drain. */
export function markDraining(): void {
  draining = true;
}

/** Answers /healthz, /readyz and /metrics (Prometheus); returns false for any other path. */
export function serveHealth(checks: Checks) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end('{"status":"ok"}');
      return true;
    }
    if (path === '/metrics') {
      prometheus.getMetricsRequestHandler(req, res);
      return true;
    }
    if (path === '/readyz') {
      void runChecks(checks).then(({ ready, checks: results }) => {
        const ok = ready && !draining;
        res
          .writeHead(ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify({ status: ok ? 'ok' : draining ? 'draining' : 'unavailable', checks: results }));
      });
      return true;
    }
    return false;
  };
}
