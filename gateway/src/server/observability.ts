// What the gateway tells on-call about each request: one JSON log line (method, route, status,
// duration, request/trace/tenant ids), the server span's name (`GET /trpc/pasien.list`), tenant and
// outcome, and the request metrics per route. Plus scrape-time gauges of its caches and upstream
// pools. Routes are a bounded set: procedure paths the upstream knew, normalised REST paths, and
// `{unknown}` for anything that ended in 404 (so that scanners cannot mint label values).
import { trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { requestContext } from '@simrs/platform/context';
import { meter } from '@simrs/platform/metrics';
import { normalizePath } from '@simrs/platform/redact';
import { annotateRequest, outcomeOf } from '@simrs/platform/spans';
import type { PrincipalCache } from '../credentials/index.ts';
import type { Upstream } from '../proxy/index.ts';
import { decodePath, procedureOf, routeFor } from '../routes/index.ts';
import { answeredByGateway } from './context.ts';
import { log } from './log.ts';
import { recordServerDuration, serverSpans } from './tracing.ts';

const m = meter('gateway');
const requests = m.createCounter('gateway.requests', { description: 'Requests answered by the gateway, by method, route and outcome.' });
const duration = m.createHistogram('gateway.request.duration', {
  description: 'Time from the request arriving to the response being sent, in seconds, by method, route and outcome.',
  unit: 's',
  advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
});

const PROCEDURE = /^[A-Za-z][\w]*(\.[A-Za-z][\w]*)*$/;

/**
 * The route label and span route of a request, from its path, its route in the route table and the
 * status it got. Only an answer from the upstream (other than 404) vouches for a path: what the gateway
 * refused itself (401, 413, 429, 503) is labelled `{rejected}`, so that nobody can mint label values by
 * sending junk paths.
 */
export function routeOf(originalUrl: string, status: number, gatewayAnswered = false): string {
  const path = originalUrl.split('?')[0] ?? '/';
  const matched = routeFor(path);
  // A route serving one exact document is labelled like a static page.
  const route = matched?.paths === 'exact' ? undefined : matched;
  if (gatewayAnswered && status !== 404) return route ? `${route.prefix}/{rejected}` : '{rejected}';
  const known = status !== 404;
  const encoded = route && procedureOf(path, route);
  if (route && encoded !== undefined) {
    const procedure = decodePath(encoded);
    if (procedure === undefined) return `${route.prefix}/{unknown}`;
    if (procedure.includes(',')) return `${route.prefix}/{batch}`;
    return known && PROCEDURE.test(procedure) ? `${route.prefix}/${procedure}` : `${route.prefix}/{unknown}`;
  }
  if (route?.paths === 'prefix') return known ? normalizePath(path) : `${route.prefix}/{unknown}`;
  return known && status < 400 ? normalizePath(path) : '{unmatched}';
}

/** First middleware after the request id: measures, names, logs. */
export function observeRequests() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    const store = requestContext.getStore();
    const span = trace.getActiveSpan()?.spanContext();
    const traceId = span && span.traceFlags !== undefined ? span.traceId : undefined;
    let route: string | undefined;

    // The HTTP instrumentation's span is named when the status is known, before the response ends (it
    // reads the route when the response finishes). Without it (tracing.ts), nothing is named.
    if (serverSpans) {
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
        route ??= routeOf(req.originalUrl, res.statusCode, answeredByGateway(res));
        annotateRequest(req, { name: `${req.method} ${route}`, route, tenantId: store?.tenantId });
        return writeHead.apply(this, args);
      } as Response['writeHead'];
    }

    let done = false;
    const finish = (aborted: boolean) => {
      if (done) return;
      done = true;
      const status = aborted && !res.headersSent ? 499 : res.statusCode;
      route ??= routeOf(req.originalUrl, status, answeredByGateway(res));
      const seconds = (performance.now() - started) / 1000;
      const outcome = outcomeOf(status);
      const labels = { method: req.method, route, outcome };
      requests.add(1, { ...labels, status_code: status });
      duration.record(seconds, labels);
      recordServerDuration(req, res.statusCode, route, seconds);
      // The log line is built only when it will be written (LOG_LEVEL warn drops every 2xx-4xx line).
      if (status < 500 && !log.isLevelEnabled('info')) return;
      const line = {
        method: req.method,
        route,
        status,
        duration_ms: Math.round(seconds * 1_000_000) / 1000,
        request_id: store?.requestId,
        ...(traceId ? { trace_id: traceId } : {}),
        ...(store?.tenantId ? { tenant_id: store.tenantId } : {}),
        ...(aborted ? { aborted: true } : {}),
      };
      if (status >= 500) log.warn(line, 'request');
      else log.info(line, 'request');
    };
    res.once('finish', () => finish(false));
    res.once('close', () => finish(!res.writableFinished));
    next();
  };
}

/** Scrape-time gauges of the credential caches, the revocation feed and the upstream pools. */
export function observeGateway(deps: {
  caches: Record<'session' | 'bearer', PrincipalCache>;
  revocationsLive: () => boolean;
  upstreams: Upstream[];
}): void {
  const lookups = m.createObservableCounter('gateway.credential_cache.lookups', {
    description: 'Credential cache lookups by credential (session, bearer) and result (hit, miss).',
  });
  const entries = m.createObservableGauge('gateway.credential_cache.entries', {
    description: 'Verified credentials held in memory, by credential.',
  });
  const live = m.createObservableGauge('gateway.revocations.live', {
    description: 'Whether the revocation feed is subscribed (1); while 0, session verdicts are not cached.',
  });
  const upstream = m.createObservableGauge('gateway.upstream.connections', {
    description: 'Connections of the proxy pools by upstream and state (connected, free).',
  });
  const upstreamRequests = m.createObservableGauge('gateway.upstream.requests', {
    description: 'Proxied requests in flight by upstream and state (running, pending).',
  });
  m.addBatchObservableCallback(
    (result) => {
      for (const [credential, cache] of Object.entries(deps.caches)) {
        result.observe(lookups, cache.hits, { credential, result: 'hit' });
        result.observe(lookups, cache.misses, { credential, result: 'miss' });
        result.observe(entries, cache.size, { credential });
      }
      result.observe(live, deps.revocationsLive() ? 1 : 0);
      for (const u of deps.upstreams) {
        const stats = u.pool.stats;
        result.observe(upstream, stats.connected, { upstream: u.name, state: 'connected' });
        result.observe(upstream, stats.free, { upstream: u.name, state: 'free' });
        result.observe(upstreamRequests, stats.running, { upstream: u.name, state: 'running' });
        result.observe(upstreamRequests, stats.pending, { upstream: u.name, state: 'pending' });
      }
    },
    [lookups, entries, live, upstream, upstreamRequests],
  );
}
