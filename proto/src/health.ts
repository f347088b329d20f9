// grpc.health.v1 for every gRPC server, so Kubernetes' native gRPC probes and grpc_health_probe work.
// The status of the whole server ("") follows a readiness check supplied by the service.
import { create } from '@bufbuild/protobuf';
import { Health, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus as ServingStatus } from '../gen/grpc/health/v1/health_pb.js';
import type { HealthCheckRequest } from '../gen/grpc/health/v1/health_pb.js';
import { definitionOf, grpc } from './grpc.ts';

export { ServingStatus };

export interface HealthOptions {
  /** Names of the services this server serves (e.g. "simrs.notifier.v1.NotifierService"). */
  services: string[];
  /** Resolves true when the server can do its work (its dependencies are reachable). */
  ready: () => Promise<boolean>;
}

export function addHealthService(server: grpc.Server, options: HealthOptions): { shutdown(): void } {
  let shuttingDown = false;
  const known = new Set(['', ...options.services]);

  async function status(service: string): Promise<ServingStatus> {
    if (!known.has(service)) return ServingStatus.SERVICE_UNKNOWN;
    if (shuttingDown) return ServingStatus.NOT_SERVING;
    return (await options.ready().catch(() => false)) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  }

  server.addService(definitionOf(Health), {
    check(call: grpc.ServerUnaryCall<HealthCheckRequest, unknown>, callback: grpc.sendUnaryData<unknown>) {
      const service = call.request.service;
      status(service).then((s) => {
        if (s === ServingStatus.SERVICE_UNKNOWN) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        else callback(null, create(HealthCheckResponseSchema, { status: s }));
      });
    },
    // Watch reports the status now and whenever it changes, polling the readiness check.
    watch(call: grpc.ServerWritableStream<HealthCheckRequest, unknown>) {
      let last: ServingStatus | undefined;
      const tick = () =>
        status(call.request.service).then((s) => {
          if (s !== last) call.write(create(HealthCheckResponseSchema, { status: s }));
          last = s;
        });
      void tick();
      const timer = setInterval(tick, 2_000);
      call.on('cancelled', () => clearInterval(timer));
      call.on('close', () => clearInterval(timer));
    },
  });
  return {
    shutdown() {
      shuttingDown = true;
    },
  };
}
