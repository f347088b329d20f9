// The last middleware of every route: the request goes to the route's upstream with the headers its
// credential rule allows. Every upstream gets exactly one client address and never a principal the
// client sent; records gets neither cookie nor token, only the principal signed for the caller.
import type { Request, RequestHandler, Response } from 'express';
import { PRINCIPAL_HEADER } from '@simrs/contracts/principal';
import { resourceMetadataUrl } from '@simrs/contracts/oauth';
import { oauth } from '../config.ts';
import type { Route, UpstreamName } from '../routes/index.ts';
import { callerOf } from '../server/index.ts';
import { forwardHeaders, proxy } from './proxy.ts';
import type { Upstream } from './proxy.ts';

export interface ForwardOptions {
  upstreams: Record<UpstreamName, Upstream>;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

function forwardedFor(req: Request): Record<string, string | undefined> {
  return {
    // Exactly one address, the client's as seen through trusted proxies only.
    'x-forwarded-for': req.ip ?? req.socket.remoteAddress ?? '',
    'x-forwarded-proto': req.protocol,
    'x-forwarded-host': req.hostname,
    [PRINCIPAL_HEADER]: undefined,
  };
}

/** RFC 6750 §3 with RFC 9728 §5.1: where the metadata of the route's resource is (and, where declared, the scope to ask for). */
function bearerChallenge(route: Route): string {
  const metadata = resourceMetadataUrl(route.resource?.audience ?? oauth.audience);
  return `Bearer realm="simrs", resource_metadata="${metadata}"${route.resource?.scope ? `, scope="${route.resource.scope}"` : ''}`;
}

export function forward(route: Route, options: ForwardOptions): RequestHandler {
  const target = options.upstreams[route.upstream];
  const limits = { maxBodyBytes: options.maxBodyBytes, bodyTimeoutMs: options.bodyTimeoutMs };
  if (route.credentials === 'passthrough') {
    return (req, res) => proxy(target, req, res, forwardHeaders(req.headers, forwardedFor(req)), limits);
  }
  const challengeHeader = bearerChallenge(route);
  const send = (req: Request, res: Response, principal: string | undefined) => {
    // The upstream needs neither the cookie nor the token: the principal says everything.
    const set = forwardedFor(req);
    set.cookie = undefined;
    set.authorization = undefined;
    set[PRINCIPAL_HEADER] = principal;
    // RFC 6750 §3: a request that carried no credentials and is refused gets the Bearer challenge,
    // naming where the API's resource metadata is (RFC 9728 §5.1).
    const challenge = principal ? undefined : { 'www-authenticate': challengeHeader };
    return proxy(target, req, res, forwardHeaders(req.headers, set), limits, challenge);
  };
  return (req, res) => {
    // A principal minted before comes back as it is (no promise to wait for): the usual case.
    const minted = callerOf(res)?.signPrincipal();
    return typeof minted === 'object' ? minted.then((principal) => send(req, res, principal)) : send(req, res, minted);
  };
}
