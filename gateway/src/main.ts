import { createServer } from 'node:http';
import { markDraining, serveHealth } from '@simrs/platform/health';
import { handleSignals, onShutdown } from '@simrs/platform/lifecycle';
import { observeRedis } from '@simrs/platform/pool-metrics';
import { createRedis, pingRedis } from '@simrs/platform/redis';
import { config, oauth } from './config.ts';
import { BearerAuthenticator, redisReplayStore, Revocations, SessionAuthenticator } from './credentials/index.ts';
import { upstream } from './proxy/index.ts';
// app.ts and observability.ts import the domain folders, so server/index.ts cannot re-export them.
import { createApp } from './server/app.ts';
import { answerClientErrors, log } from './server/index.ts';
import { observeGateway } from './server/observability.ts';

const subscriber = createRedis(config, 'gateway-revocations');
const redis = createRedis(config, 'gateway');
const revocations = new Revocations(subscriber, redis);
const sessions = new SessionAuthenticator({
  identityAddress: config.IDENTITY_GRPC,
  principalSecret: config.PRINCIPAL_SECRET,
  cacheSeconds: config.SESSION_CACHE_SECONDS,
  revocations,
});
const bearer = new BearerAuthenticator({
  issuer: oauth.issuer,
  jwksUrl: oauth.jwksUrl,
  audience: [oauth.audience, oauth.mcpResource],
  principalSecret: config.PRINCIPAL_SECRET,
  revocations,
  replayStore: redisReplayStore(redis),
});
const upstreams = {
  identity: upstream('identity', config.IDENTITY_URL, config.UPSTREAM_CONNECT_TIMEOUT_MS, config.UPSTREAM_TIMEOUT_MS),
  records: upstream('records', config.RECORDS_URL, config.UPSTREAM_CONNECT_TIMEOUT_MS, config.UPSTREAM_TIMEOUT_MS),
};

const app = createApp({ upstreams, sessions, bearer, redis });
observeGateway({
  caches: { session: sessions.cache, bearer: bearer.cache },
  revocationsLive: () => revocations.live,
  upstreams: Object.values(upstreams),
});
observeRedis('gateway', redis);
observeRedis('gateway-revocations', subscriber);
const server = app.listen(config.GATEWAY_PORT, config.HOST, () =>
  log.info({ port: config.GATEWAY_PORT, ops: config.OPS_PORT, url: config.PUBLIC_URL }, 'gateway listening'),
);
answerClientErrors(server);
// Longer than the load balancers' idle timeout, so that they close idle connections, not us.
server.keepAliveTimeout = 65_000;
// Bound what one slow client can hold: headers within 15 s, the whole request within 30 s.
server.headersTimeout = 15_000;
server.requestTimeout = 30_000;

// Health and metrics stay off the public port: readiness details and metrics are for the cluster only.
const health = serveHealth({ redis: () => pingRedis(redis) });
const ops = createServer((req, res) => {
  if (!health(req, res)) res.writeHead(404).end();
}).listen(config.OPS_PORT, config.HOST);

handleSignals(log);
onShutdown('stop accepting', () => markDraining());
onShutdown('http', () => new Promise((resolve) => server.close(resolve)));
onShutdown('ops', () => new Promise((resolve) => ops.close(resolve)));
onShutdown('upstreams', () => Promise.all(Object.values(upstreams).map((u) => u.pool.close())));
onShutdown('identity grpc', () => sessions.close());
onShutdown('redis', () => Promise.all([redis.quit(), subscriber.quit()]));
