// identity: Better Auth over HTTP (/api/auth, pages under /auth), IdentityService over gRPC.
// config -> logger -> migrate -> servers -> signals, as every service here.
import { addHealthService } from '@simrs/proto/health';
import { createServer as createGrpcServer, drain, listen } from '@simrs/proto/grpc';
import { createPool } from '@simrs/platform/db';
import { markDraining } from '@simrs/platform/health';
import { handleSignals, onShutdown } from '@simrs/platform/lifecycle';
import { observePgPool, observeRedis } from '@simrs/platform/pool-metrics';
import { untraced } from '@simrs/platform/spans';
import { createRedis, pingRedis } from '@simrs/platform/redis';
import { createAdmin } from './admin.ts';
import type { Admin } from './admin.ts';
import { createAuth } from './auth.ts';
import { loadIdentityConfig } from './config.ts';
import { createDirectory } from './directory.ts';
import { addIdentityService } from './grpc.ts';
import { createHttpServer } from './http.ts';
import { createInviter } from './invitations.ts';
import { deriveKeys } from './keys.ts';
import { createLimits } from './limits.ts';
import { log } from './log.ts';
import { createMailer } from './mailer.ts';
import { observeDeviceCodes } from './metrics.ts';
import { migrateIdentity } from './migrate.ts';
import { createPages } from './pages.ts';
import { createRevocations } from './revocations.ts';
import { seedDemoData } from './seed.ts';
import { createSessions } from './sessions.ts';
import { createIdentityStorage } from './storage.ts';

const config = loadIdentityConfig();
const pool = createPool(config.DATABASE_URL);
const directory = createDirectory(pool);
if (config.MIGRATE_ON_START) await migrateIdentity(config, pool, log);
if (config.SEED_DEMO_DATA) log.info(await seedDemoData(directory), 'demo data seeded');

const redis = createRedis(config.REDIS_URL, 'identity');
const keys = deriveKeys(config.AUTH_SECRET, config.REDIS_KEY_SECRET);
const storage = createIdentityStorage(redis, keys);
const limits = createLimits(redis, keys.redisKeyName, config);
const mailer = createMailer(config.NOTIFIER_GRPC, config.MAIL_LOCALE, log);
const revocations = createRevocations(redis, log);

// The admin operations need sessions, which need the auth instance, which offers them over HTTP.
const adminRef: { current?: Admin } = {};
const auth = createAuth({ config, pool, storage, keys, directory, limits, mailer, revocations, admin: () => adminRef.current!, log });
const authContext = () => auth.$context;
await authContext(); // fail at start, not on the first request, if Better Auth cannot initialise

const sessions = createSessions({
  authContext,
  directory,
  storage,
  revocations,
  secret: config.AUTH_SECRET,
  sessionTtlSeconds: config.SESSION_TTL_SECONDS,
});
const admin = createAdmin({
  directory,
  invite: createInviter({ config, keys, mailer, authContext }),
  endUserSessions: (userId) => sessions.endUserSessions(userId),
  forgetUser: (userId) => sessions.forgetUser(userId),
});
adminRef.current = admin;

const checks = { postgres: () => pool.query('select 1'), redis: () => pingRedis(redis) };
observePgPool('identity', pool);
observeRedis('identity', redis);
observeDeviceCodes(pool, untraced);
const pages = createPages({
  directory,
  currentUser: async (headers) => (await auth.api.getSession({ headers }))?.user ?? undefined,
});
const http = createHttpServer({ config, handler: auth.handler, pages, checks, log });
http.listen(config.HTTP_PORT, config.HOST, () => log.info({ port: config.HTTP_PORT }, 'identity http listening'));

// Connections are recycled now and then, so the gateway's calls spread over new replicas too.
const grpcServer = createGrpcServer();
const health = addHealthService(grpcServer, {
  services: ['simrs.identity.v1.IdentityService'],
  ready: async () => {
    await Promise.all(Object.values(checks).map((check) => check()));
    return true;
  },
});
addIdentityService(grpcServer, { sessions, admin, adminToken: config.ADMIN_API_TOKEN, log });
const grpcPort = await listen(grpcServer, config.HOST, config.GRPC_PORT);
log.info({ port: grpcPort }, 'identity grpc listening');

handleSignals(log);
onShutdown('stop accepting', () => {
  markDraining();
  health.shutdown();
});
onShutdown('http', () => new Promise((resolve) => http.close(resolve)));
onShutdown('grpc', () => drain(grpcServer));
onShutdown('mail', async () => {
  await mailer.flush();
  mailer.close();
});
onShutdown('redis', () => redis.quit());
onShutdown('postgres', () => pool.end());
