// The notifier: gRPC NotifierService (store before ack) + the delivery worker + an HTTP port for
// /healthz, /readyz and /metrics. Readiness is the message store, never the SMTP server: with the
// SMTP server down the notifier still accepts (and durably queues) mail, which is the point.
import { createServer } from 'node:http';
import { createPool } from '@simrs/platform/db';
import { markDraining, serveHealth } from '@simrs/platform/health';
import { handleSignals, onShutdown } from '@simrs/platform/lifecycle';
import { createLogger } from '@simrs/platform/logger';
import { observePgPool } from '@simrs/platform/pool-metrics';
import { NotifierService } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { addService, drain, grpc, listen } from '@simrs/proto/grpc';
import { addHealthService } from '@simrs/proto/health';
import { config } from './config.ts';
import { migrateStore, untraced } from './db/index.ts';
import { createWorker, stats } from './deliveries/index.ts';
import { createMailer, parseAddress } from './mail/index.ts';
import { createMetrics, notifierHandlers, toGrpcError } from './server/index.ts';

const cfg = config();
const log = createLogger('notifier', cfg.logLevel);
handleSignals(log);

try {
  if (cfg.migrateOnStart) await migrateStore(cfg.databaseUrl, log);
} catch (err) {
  log.fatal({ err: { message: (err as Error).message } }, 'cannot migrate the message store');
  process.exit(1);
}
// Every statement of the store takes milliseconds (a migration, above, may take longer). A connection
// whose server vanished without a reset (a failover that drops packets) would hold a statement for
// minutes; the timeout ends it, the pool drops that connection, and the worker's retry goes out on a
// fresh one, well within the half lease in which a sent message's record must land.
const pool = createPool(cfg.databaseUrl, { max: cfg.concurrency + 4, query_timeout: 5_000 });

const from = parseAddress(cfg.from)!;
observePgPool('notifier', pool);
const metrics = createMetrics(() => untraced(() => stats(pool)));
const storeReachable = () =>
  untraced(async () => {
    await pool.query('select 1');
    return true;
  });

const worker = createWorker({
  pool,
  log,
  metrics,
  send: createMailer(cfg.smtp, from),
  retry: cfg.retry,
  leaseMs: cfg.leaseMs,
  pollMs: cfg.pollMs,
  concurrency: cfg.concurrency,
  retentionDays: cfg.retentionDays,
});

const server = new grpc.Server();
addService(
  server,
  NotifierService,
  notifierHandlers({ pool, log, metrics, messageIdDomain: from.address.split('@')[1]!, onQueued: () => worker.wake() }),
  {
    mapError: toGrpcError,
    onInternalError: (method, err) =>
      log.error({ method, err: { message: (err as Error).message, stack: (err as Error).stack } }, 'gRPC handler failed'),
  },
);
const health = addHealthService(server, { services: [NotifierService.typeName], ready: storeReachable });
const grpcPort = await listen(server, cfg.host, cfg.grpcPort);

// /healthz, /readyz and /metrics (the platform's Prometheus exporter, which reads server/metrics.ts).
const healthHandler = serveHealth({ store: storeReachable });
const http = createServer((req, res) => {
  if (healthHandler(req, res)) return;
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
});
await new Promise<void>((resolve, reject) => {
  http.once('error', reject);
  http.listen(cfg.httpPort, cfg.host, resolve);
});
const httpAddress = http.address();
const httpPort = typeof httpAddress === 'object' && httpAddress ? httpAddress.port : cfg.httpPort;

worker.start();

onShutdown('mark draining', () => {
  markDraining();
  health.shutdown();
});
onShutdown('stop gRPC', () => drain(server));
onShutdown('stop worker', () => worker.stop());
onShutdown('stop HTTP', () => new Promise((resolve) => http.close(resolve)));
onShutdown('close pool', () => pool.end());

log.info(
  { grpc_port: grpcPort, http_port: httpPort, smtp_host: cfg.smtp.host, smtp_port: cfg.smtp.port, smtp_tls: cfg.smtp.tls },
  `notifier listening: grpc=${grpcPort} http=${httpPort}`,
);
