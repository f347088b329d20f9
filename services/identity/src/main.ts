// identity: Better Auth over HTTP (/api/auth; no pages: people see the dashboard's), IdentityService over gRPC.
// config -> logger -> migrate -> servers -> signals, as every service here.
import { addHealthService } from '@simrs/proto/health';
import { createServer as createGrpcServer, drain, listen } from '@simrs/proto/grpc';
import { createPool } from '@simrs/platform/db';
import { markDraining } from '@simrs/platform/health';
import { handleSignals, onShutdown } from '@simrs/platform/lifecycle';
import { observePgPool, observeRedis } from '@simrs/platform/pool-metrics';
import { untraced } from '@simrs/platform/spans';
import { createRedis, pingRedis } from '@simrs/platform/redis';
import { createAuth, JWT_OPTIONS, keySet } from './auth/index.ts';
import { reserveDpopProofsInRedis, routerOnce } from './shims/index.ts';
import { loadIdentityConfig } from './config.ts';
import { migrateIdentity, seedDemoData } from './db/index.ts';
import { createDirectory } from './directory/index.ts';
import { deriveKeys } from './keys/index.ts';
import { createMailer, createOutbox } from './mail/index.ts';
import {
  createOAuthClients,
  createRegistrationTokens,
  ensureSigningKeys,
  rotateSigningKey,
  startExpirySweep,
  withCorrectDiscovery,
} from './oauth/index.ts';
import { addIdentityService, createHttpServer, log, observeDeviceCodes } from './server/index.ts';
import { createIdentityStorage, createRevocations, createSessions } from './sessions/index.ts';
import { createLimits } from './signin/index.ts';
import { createAdmin, createIntegrations, createInviter } from './tenants/index.ts';
import type { Admin } from './tenants/index.ts';

const config = loadIdentityConfig();
const pool = createPool(config.DATABASE_URL);
const directory = createDirectory(pool);
if (config.MIGRATE_ON_START) await migrateIdentity(config, pool, log);
if (config.SEED_DEMO_DATA) log.info(await seedDemoData(directory), 'demo data seeded');

const redis = createRedis(config, 'identity');
const keys = deriveKeys(config.AUTH_SECRET, config.REDIS_KEY_SECRET);
const storage = createIdentityStorage(redis, keys);
const limits = createLimits(redis, keys.redisKeyName, config);
const outbox = createOutbox({ pool, sealKey: keys.mailOutbox, notifierAddress: config.NOTIFIER_GRPC, log });
const mailer = createMailer(outbox, config.MAIL_LOCALE);
// Kept in the revocation log at least as long as an access token can live.
const revocations = createRevocations(redis, log, Math.max(3600, config.ACCESS_TOKEN_TTL_SECONDS));
const registrationTokens = createRegistrationTokens(storage, config.REGISTRATION_TOKEN_TTL_SECONDS);
const oauthClients = createOAuthClients(pool);

// The admin operations need sessions, which need the auth instance, which offers them over HTTP.
const adminRef: { current?: Admin } = {};
const auth = createAuth({
  config,
  pool,
  storage,
  keys,
  directory,
  limits,
  mailer,
  revocations,
  registrationTokens,
  oauthClients,
  admin: () => adminRef.current!,
  log,
});
const authContext = () => auth.$context;
await authContext(); // fail at start, not on the first request, if Better Auth cannot initialise

const sessions = createSessions({
  authContext,
  directory,
  storage,
  revocations,
  secret: config.AUTH_SECRET,
  sessionTtlSeconds: config.SESSION_TTL_SECONDS,
  endOAuthGrants: (userId) => oauthClients.revokeUserGrants(userId),
});
const admin = createAdmin({
  directory,
  invite: createInviter({ config, keys, mailer, authContext }),
  endUserSessions: (userId) => sessions.endUserSessions(userId),
  forgetUser: (userId) => sessions.forgetUser(userId),
  registrationTokens,
  oauthClients,
  integrations: createIntegrations(pool, config.DEVICE_CODE_TTL_SECONDS),
  publishRevocation: (revocation) => revocations.publish(revocation),
  rotateSigningKey: async () => {
    const rotated = await rotateSigningKey(await authContext(), JWT_OPTIONS);
    keySet.invalidate();
    return rotated;
  },
});
adminRef.current = admin;

const checks = { postgres: () => pool.query('select 1'), redis: () => pingRedis(redis) };
observePgPool('identity', pool);
observeRedis('identity', redis);
observeDeviceCodes(pool, untraced);
reserveDpopProofsInRedis(await authContext(), storage);
const minted = await ensureSigningKeys(await authContext(), JWT_OPTIONS);
if (minted.length) log.info({ algorithms: minted }, 'signing keys created');
// A request that failed because Postgres or Redis dropped may be answered after they are back (and
// readiness passes again): for a few seconds after a dropped connection, its 500 is still a 503.
let troubleAt = 0;
const trouble = () => void (troubleAt = Date.now());
pool.on('error', trouble);
pool.on('connect', (client) => client.on('error', trouble));
redis.on('error', trouble);
const recentTrouble = () => Date.now() - troubleAt < 10_000;
const http = createHttpServer({ config, handler: withCorrectDiscovery(routerOnce(auth)), checks, recentTrouble, log });
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
addIdentityService(grpcServer, { sessions, admin, adminToken: config.ADMIN_API_TOKEN, log, publicUrl: config.PUBLIC_URL });
const grpcPort = await listen(grpcServer, config.HOST, config.GRPC_PORT);
outbox.start();
const expirySweep = startExpirySweep(pool, log, config.EXPIRED_ROWS_SWEEP_SECONDS);
log.info({ port: grpcPort }, 'identity grpc listening');

handleSignals(log);
onShutdown('stop accepting', () => {
  markDraining();
  health.shutdown();
});
onShutdown('http', () => new Promise((resolve) => http.close(resolve)));
onShutdown('grpc', () => drain(grpcServer));
onShutdown('mail', () => outbox.stop());
onShutdown('expiry sweep', () => expirySweep.stop());
onShutdown('redis', () => redis.quit());
onShutdown('postgres', () => pool.end());
