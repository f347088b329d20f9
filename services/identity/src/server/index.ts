// identity's transports: the HTTP server (Better Auth under /api/auth, health; no pages),
// the gRPC IdentityService (sessions for the gateway, the admin API for the CLI), the logger, and the
// service-wide metrics.
export { addIdentityService } from './grpc.ts';
export { createHttpServer } from './http.ts';
export { log } from './log.ts';
export { observeDeviceCodes } from './metrics.ts';
