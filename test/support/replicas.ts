// The stack with two gateway replicas and two identity replicas, each pair behind a round-robin
// balancer on loopback, sharing nothing but Redis and Postgres (records and the notifier stay single).
// Clients reach the gateways through the public balancer (the PUBLIC_URL); the gateways reach identity
// through an HTTP balancer (per request) and a TCP one for gRPC (per connection, as a Service does).
// The second replicas are started once the first are ready, so that migrations never run twice at once.
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { startStack } from '../../scripts/lib/stack.ts';
import type { Stack, StackOptions } from '../../scripts/lib/stack.ts';
import { startBalancer } from './balancer.ts';
import type { Balancer } from './balancer.ts';

export interface ReplicatedStack {
  /** The stack as the shared helpers see it: gatewayUrl is the public balancer. */
  stack: Stack;
  /** Each gateway replica directly, to choose which one answers. */
  gateways: [string, string];
  /** Each identity replica's HTTP directly. */
  identities: [string, string];
  balancers: { public: Balancer; identityHttp: Balancer; identityGrpc: Balancer };
  replicas: ServiceProcess[];
  stop(): Promise<void>;
}

export async function startReplicatedStack(
  options: Pick<StackOptions, 'postgresUrl' | 'redisUrl' | 'smtpUrl' | 'dbPrefix'> & {
    identityEnv: Record<string, string>;
    gatewayEnv: Record<string, string>;
  },
): Promise<ReplicatedStack> {
  const [publicPort, identityHttpLb, identityGrpcLb, identityHttp, identityGrpc, identityHttp2, identityGrpc2, gateway, gateway2, ops2] =
    await Promise.all(Array.from({ length: 10 }, () => freePort()));
  const balancers = {
    public: await startBalancer('http', publicPort!, [gateway!, gateway2!]),
    identityHttp: await startBalancer('http', identityHttpLb!, [identityHttp!, identityHttp2!]),
    identityGrpc: await startBalancer('tcp', identityGrpcLb!, [identityGrpc!, identityGrpc2!]),
  };
  const publicUrl = `http://localhost:${publicPort}`;
  const gatewayEnv = {
    IDENTITY_URL: balancers.identityHttp.url,
    IDENTITY_GRPC: balancers.identityGrpc.address,
    // The balancer passes X-Forwarded-For as the client sent it: tests pick a client address per case.
    TRUSTED_PROXIES: 'loopback',
    ...options.gatewayEnv,
  };
  const replicas: ServiceProcess[] = [];
  let stack: Stack | undefined;
  const stop = async () => {
    for (const replica of replicas) await replica.stop();
    await stack?.stop();
    await Promise.all(Object.values(balancers).map((b) => b.stop()));
  };
  try {
    stack = await startStack({
      ...options,
      publicUrl,
      ports: { gateway, identityHttp, identityGrpc },
      env: { identity: options.identityEnv, gateway: gatewayEnv },
    });
    // The same settings as startStack gives the first replicas, on ports of their own.
    const identity2 = startService('identity-2', 'services/identity', {
      HOST: '127.0.0.1',
      HTTP_PORT: String(identityHttp2),
      GRPC_PORT: String(identityGrpc2),
      DATABASE_URL: stack.databases.identity,
      REDIS_URL: options.redisUrl,
      NOTIFIER_GRPC: stack.urls.notifierGrpc,
      PUBLIC_URL: publicUrl,
      CORS_ALLOWED_ORIGINS: '',
      AUTH_SECRET: stack.secrets.auth,
      ...options.identityEnv,
    });
    replicas.push(identity2);
    await waitForReady(`http://127.0.0.1:${identityHttp2}/readyz`);
    const gateway2Process = startService('gateway-2', 'gateway', {
      HOST: '127.0.0.1',
      GATEWAY_PORT: String(gateway2),
      OPS_PORT: String(ops2),
      PUBLIC_URL: publicUrl,
      RECORDS_URL: stack.urls.records,
      REDIS_URL: options.redisUrl,
      PRINCIPAL_SECRET: stack.secrets.principal,
      CORS_ALLOWED_ORIGINS: '',
      ...gatewayEnv,
    });
    replicas.unshift(gateway2Process); // stopped first: front to back
    await waitForReady(`http://127.0.0.1:${ops2}/readyz`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    stack: { ...stack, gatewayUrl: balancers.public.url },
    gateways: [`http://127.0.0.1:${gateway}`, `http://127.0.0.1:${gateway2}`],
    identities: [`http://127.0.0.1:${identityHttp}`, `http://127.0.0.1:${identityHttp2}`],
    balancers,
    replicas,
    stop,
  };
}
