// The one bridge between protoc-gen-es descriptors and @grpc/grpc-js: typed unary handlers on the
// server side, typed promise clients on the other, binary protobuf on the wire, no proto-loader.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { DescMessage, DescMethod, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import * as grpc from '@grpc/grpc-js';

export { grpc };

/** A failure that carries its gRPC status; anything else thrown by a handler becomes INTERNAL. */
export class GrpcError extends Error {
  readonly code: grpc.status;
  constructor(code: grpc.status, message: string) {
    super(message);
    this.name = 'GrpcError';
    this.code = code;
  }
}

type UnaryMethods<S extends GenServiceMethods> = {
  [K in keyof S as S[K]['methodKind'] extends 'unary' ? K : never]: S[K];
};

export type Handlers<S extends GenServiceMethods> = {
  [K in keyof UnaryMethods<S>]: (
    request: MessageShape<S[K]['input']>,
    call: grpc.ServerUnaryCall<unknown, unknown>,
  ) => Promise<MessageInitShape<S[K]['output']>>;
};

export type Client<S extends GenServiceMethods> = {
  [K in keyof UnaryMethods<S>]: (request: MessageInitShape<S[K]['input']>, options?: CallOptions) => Promise<MessageShape<S[K]['output']>>;
};

export interface CallOptions {
  /** Milliseconds; every call has a deadline so that a dead peer never hangs the caller. */
  timeoutMs?: number;
  metadata?: grpc.Metadata;
}

export interface HandlerHooks {
  /** Called with every failure that is not a GrpcError (a bug or a broken dependency). */
  onInternalError?: (method: string, err: unknown) => void;
  /** Maps a domain error to a GrpcError, or returns undefined to treat it as internal. */
  mapError?: (err: unknown) => GrpcError | undefined;
}

function codec<D extends DescMessage>(schema: D) {
  return {
    serialize: (msg: MessageShape<D>) => Buffer.from(toBinary(schema, msg)),
    deserialize: (bytes: Buffer) => fromBinary(schema, bytes),
  };
}

/** The grpc-js definition of a service: paths and serializers taken from the descriptor. */
export function definitionOf(service: GenService<GenServiceMethods>): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    const request = codec(method.input);
    const response = codec(method.output);
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
      responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
      requestSerialize: request.serialize as (msg: unknown) => Buffer,
      requestDeserialize: request.deserialize,
      responseSerialize: response.serialize as (msg: unknown) => Buffer,
      responseDeserialize: response.deserialize,
    };
  }
  return definition;
}

function toServiceError(err: unknown, method: string, hooks: HandlerHooks): Partial<grpc.ServiceError> {
  const mapped = err instanceof GrpcError ? err : hooks.mapError?.(err);
  if (mapped) return { code: mapped.code, details: mapped.message };
  hooks.onInternalError?.(method, err);
  // An INTERNAL answer says nothing of the cause; the log has it.
  return { code: grpc.status.INTERNAL, details: 'internal error' };
}

/** Registers typed unary handlers for a service on a grpc-js server. */
export function addService<S extends GenServiceMethods>(
  server: grpc.Server,
  service: GenService<S>,
  handlers: Handlers<S>,
  hooks: HandlerHooks = {},
): void {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of service.methods as DescMethod[]) {
    const handler = (handlers as Record<string, Handlers<S>[keyof Handlers<S>]>)[method.localName];
    if (!handler || method.methodKind !== 'unary') continue;
    implementation[method.localName] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      handler(call.request as never, call).then(
        (init) => callback(null, create(method.output, init as never)),
        (err: unknown) => callback(toServiceError(err, method.name, hooks)),
      );
    };
  }
  server.addService(definitionOf(service as GenService<GenServiceMethods>), implementation);
}

const DEFAULT_TIMEOUT_MS = 5_000;

/** A typed promise client for a service at `address` (host:port, plaintext inside the cluster). */
export function createClient<S extends GenServiceMethods>(
  service: GenService<S>,
  address: string,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
): Client<S> & { close(): void } {
  const Ctor = grpc.makeGenericClientConstructor(definitionOf(service as GenService<GenServiceMethods>), service.typeName);
  const raw = new Ctor(address, credentials) as unknown as grpc.Client &
    Record<string, grpc.requestCallback<unknown> & ((...args: unknown[]) => unknown)>;
  const client: Record<string, unknown> = { close: () => raw.close() };
  for (const method of service.methods as DescMethod[]) {
    if (method.methodKind !== 'unary') continue;
    client[method.localName] = (init: unknown, options: CallOptions = {}) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
        const call = raw[method.localName] as unknown as (
          req: unknown,
          md: grpc.Metadata,
          opts: grpc.CallOptions,
          cb: (err: grpc.ServiceError | null, res: unknown) => void,
        ) => void;
        call.call(raw, create(method.input, init as never), options.metadata ?? new grpc.Metadata(), { deadline }, (err, res) =>
          err ? reject(err) : resolve(res),
        );
      });
  }
  return client as Client<S> & { close(): void };
}

/** True when `err` is a gRPC failure with the given status. */
export function isStatus(err: unknown, code: grpc.status): err is grpc.ServiceError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

/**
 * A server whose connections are recycled every few minutes, so that clients behind a Kubernetes
 * ClusterIP Service (one long-lived HTTP/2 connection each) spread over new replicas too.
 */
export function createServer(): grpc.Server {
  return new grpc.Server({
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
    'grpc.keepalive_time_ms': 60_000,
  });
}

/** Binds a server on `host:port` (port 0 picks a free one) and resolves the bound port. */
export function listen(server: grpc.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
}

/** Lets in-flight calls finish for up to `graceMs`, then cuts the rest. */
export function drain(server: grpc.Server, graceMs = 5_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
