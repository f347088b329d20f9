// `npm run test:images` (after `npm run images`), second of its two files: the four images, run with
// podman the way the chart runs them, against the host's Postgres and Redis and a real SMTP peer on the
// host. Not part of `npm test` (its globs match *.test.ts only): it needs podman and root. Steps, in
// order:
//   1. migrations from the images (the chart's Job command), each in its own container
//   2. the four services in one pod (they reach each other on loopback, as the chart's Services would
//      route them), each with the chart's securityContext and memory limit, until every /readyz answers 200
//   3. in each container, the heap limit its memory limit gives it (the one the bench uses outside one)
//   4. through the containerised gateway: healthCheck, OTP sign-in (code from the SMTP peer),
//      pasien.list with the cookie and with a bearer token (code flow + PKCE), a device-flow approval
//   5. SIGTERM to each container: it drains and exits 0 within terminationGracePeriodSeconds
// What each image holds: contents.e2e.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient, grpc } from '@simrs/proto/grpc';
import { databaseUrl, dropDatabase, ensureDatabase } from '@simrs/platform/db';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { podHeapOption, POD_MEMORY_LIMIT_MIB, YOUNG_GENERATION_FLAG } from '@simrs/platform/runtime';
import { freePort, testRedisUrl, testServerUrl, waitFor } from '@simrs/platform/testing';
import { imageRef, run, SERVICES } from '../../scripts/lib/containers.ts';
import type { ImageService } from '../../scripts/lib/containers.ts';
import { randomSecret, recordsAppUrl } from '../../scripts/lib/stack.ts';
import type { Stack } from '../../scripts/lib/stack.ts';
import { apiQuery, Browserless, DEVICE_CODE_GRANT, registerClient, tokensFor } from '../support/oauth.ts';
import { chartRuntime, envFlags, fromContainer, logsOf, migrateCommand, NETWORK, oneOffs, Run, securityFlags } from './pod.ts';
import { removeOnExit, requireImages, say } from './setup.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const chart = chartRuntime();
const runId = randomBytes(3).toString('hex');
const e2e = new Run(runId);
const oneOff = oneOffs(e2e, chart);
const tenant = `rs-img-${runId}`;
const admin = `admin@${tenant}.test`;
const secrets = { auth: randomSecret(), principal: randomSecret(), adminToken: randomSecret() };
const databases = {
  identity: databaseUrl(testServerUrl, `t_img_${runId}_identity`),
  records: databaseUrl(testServerUrl, `t_img_${runId}_records`),
  notifier: databaseUrl(testServerUrl, `t_img_${runId}_notifier`),
};
/** Host ports (127.0.0.1) published by the pod, per container port. */
const published = new Map<number, number>();
const hostUrl = (service: ImageService, port: string) => `http://127.0.0.1:${published.get(chart.ports[service][port]!)}`;
let smtp: SmtpPeer;
let stack: Stack;
let browser: Browserless;

removeOnExit(e2e);

before(async () => {
  await requireImages();
  const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  await redis.connect().then(
    () => redis.quit(),
    (err: Error) => {
      throw new Error(`Redis at ${testRedisUrl} does not answer: ${err.message}`);
    },
  );
  smtp = await startSmtpPeer();
  await Promise.all(Object.values(databases).map(ensureDatabase));
  for (const ports of Object.values(chart.ports)) for (const port of Object.values(ports)) published.set(port, await freePort());
  const gatewayPort = published.get(chart.ports.gateway.http!)!;
  stack = {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    publicUrl: `http://localhost:${gatewayPort}`,
    urls: {
      gatewayOps: hostUrl('gateway', 'ops'),
      identityHttp: hostUrl('identity', 'http'),
      identityGrpc: `127.0.0.1:${published.get(chart.ports.identity.grpc!)}`,
      records: hostUrl('records', 'http'),
      notifierHttp: hostUrl('notifier', 'http'),
      notifierGrpc: `127.0.0.1:${published.get(chart.ports.notifier.grpc!)}`,
    },
    databases,
    // The containers are not child processes; the OAuth helpers never look at them.
    services: {} as Stack['services'],
    secrets,
    stop: async () => e2e.removeAllSync(),
  };
});

after(async () => {
  e2e.removeAllSync();
  await Promise.allSettled([smtp?.stop(), ...Object.values(databases).map(dropDatabase)]);
});

/** The steps of a run depend on each other: after one fails, the rest are skipped (saying which failed). */
let failedStep: string | undefined;
function step(name: string, fn: () => Promise<void>): void {
  test(name, async (t) => {
    if (failedStep) return t.skip(`after "${failedStep}" failed`);
    try {
      await fn();
    } catch (err) {
      failedStep = name;
      throw err;
    }
  });
}

describe('the images run', () => {
  step(`migrations from the images (${chart.migrateCommand.join(' ')}, as the chart's Jobs)`, async () => {
    const jobs = {
      identity: { DATABASE_URL: fromContainer(databases.identity) },
      records: { DATABASE_URL: fromContainer(recordsAppUrl(databases.records)), MIGRATION_DATABASE_URL: fromContainer(databases.records) },
      notifier: { DATABASE_URL: fromContainer(databases.notifier) },
    };
    await Promise.all(
      Object.entries(jobs).map(async ([service, env]) => {
        const started = performance.now();
        const command = migrateCommand(chart, service as keyof typeof jobs);
        await oneOff(
          service as ImageService,
          `${service}-migrate`,
          command,
          { NODE_ENV: 'production', LOG_LEVEL: 'info', ...env },
          120_000,
          NETWORK,
        );
        say(`${service}: ${command.join(' ')} exited 0 in ${seconds(performance.now() - started)}`);
      }),
    );
  });

  step('the four services start in one pod with the chart securityContext and become ready', async () => {
    const publicUrl = stack.publicUrl;
    const smtpUrl = fromContainer(smtp.url);
    const redisUrl = fromContainer(testRedisUrl);
    const common = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '1.0',
    };
    const env: Record<ImageService, Record<string, string>> = {
      notifier: {
        ...common,
        OTEL_SERVICE_NAME: 'notifier',
        MIGRATE_ON_START: 'false',
        DATABASE_URL: fromContainer(databases.notifier),
        SMTP_URL: smtpUrl,
        SMTP_TLS: 'none',
        MAIL_FROM: 'SIMRS <no-reply@simrs.test>',
      },
      identity: {
        ...common,
        OTEL_SERVICE_NAME: 'identity',
        MIGRATE_ON_START: 'false',
        NOTIFIER_GRPC: `127.0.0.1:${chart.ports.notifier.grpc}`,
        PUBLIC_URL: publicUrl,
        CORS_ALLOWED_ORIGINS: publicUrl,
        DATABASE_URL: fromContainer(databases.identity),
        REDIS_URL: redisUrl,
        AUTH_SECRET: secrets.auth,
        ADMIN_API_TOKEN: secrets.adminToken,
        DEVICE_POLL_INTERVAL_SECONDS: '1',
      },
      records: {
        ...common,
        OTEL_SERVICE_NAME: 'records',
        MIGRATE_ON_START: 'false',
        DATABASE_URL: fromContainer(recordsAppUrl(databases.records)),
        PRINCIPAL_SECRET: secrets.principal,
      },
      gateway: {
        ...common,
        OTEL_SERVICE_NAME: 'gateway',
        IDENTITY_URL: `http://127.0.0.1:${chart.ports.identity.http}`,
        IDENTITY_GRPC: `127.0.0.1:${chart.ports.identity.grpc}`,
        RECORDS_URL: `http://127.0.0.1:${chart.ports.records.http}`,
        PUBLIC_URL: publicUrl,
        CORS_ALLOWED_ORIGINS: publicUrl,
        REDIS_URL: redisUrl,
        PRINCIPAL_SECRET: secrets.principal,
      },
    };
    const started = performance.now();
    const ports = [...published].flatMap(([inner, outer]) => ['--publish', `127.0.0.1:${outer}:${inner}`]);
    await run('podman', ['pod', 'create', '--name', e2e.pod, ...e2e.labels, '--network', NETWORK, ...ports], { timeoutMs: 60_000 });
    for (const service of ['notifier', 'identity', 'records', 'gateway'] as const) {
      await run(
        'podman',
        [
          'run',
          '--detach',
          '--pod',
          e2e.pod,
          '--name',
          e2e.name(service),
          ...e2e.labels,
          ...securityFlags(chart),
          '--memory',
          `${POD_MEMORY_LIMIT_MIB[service]}m`,
          ...envFlags(env[service]),
          imageRef(service),
        ],
        { timeoutMs: 60_000 },
      );
    }
    const readyz = {
      gateway: `${stack.urls.gatewayOps}/readyz`,
      identity: `${stack.urls.identityHttp}/readyz`,
      records: `${stack.urls.records}/readyz`,
      notifier: `${stack.urls.notifierHttp}/readyz`,
    };
    try {
      await Promise.all(
        Object.values(readyz).map((url) =>
          waitFor(url, async () => (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200, 60_000, 250),
        ),
      );
    } catch (err) {
      const logs = await Promise.all(SERVICES.map(async (s) => `--- ${s}\n${await logsOf(e2e.name(s))}`));
      throw new Error(`${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
    }
    say(`pod ${e2e.pod}: the four containers ready in ${seconds(performance.now() - started)}; gateway at ${stack.gatewayUrl}`);
  });

  step('in its container of the chart’s memory limit, each service has the heap limit the bench gives it outside one', async () => {
    const heapLimit = 'v8.getHeapStatistics().heap_size_limit';
    for (const service of SERVICES) {
      const inPod = await run('podman', ['exec', e2e.name(service), 'node', YOUNG_GENERATION_FLAG, '-p', heapLimit], { timeoutMs: 30_000 });
      const outside = execFileSync(process.execPath, [YOUNG_GENERATION_FLAG, podHeapOption(service), '-p', heapLimit], {
        encoding: 'utf8',
      });
      assert.equal(inPod.stdout.trim(), outside.trim(), `${service}: heap_size_limit in its pod and with ${podHeapOption(service)}`);
      say(`${service}: heap limit ${(Number(outside) / 2 ** 20).toFixed(0)} MiB under a ${POD_MEMORY_LIMIT_MIB[service]} MiB container`);
    }
  });

  step('healthCheck through the containerised gateway', async () => {
    const res = await fetch(`${stack.gatewayUrl}/trpc/healthCheck`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { result: { data: null } });
  });

  step('an OTP sign-in through the gateway, with the code the notifier container mailed to the SMTP peer', async () => {
    const identity = createClient(IdentityService, stack.urls.identityGrpc);
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${secrets.adminToken}`);
    try {
      await identity.createTenant(
        { tenantId: tenant, name: 'Rumah Sakit Citra', adminEmail: admin, adminName: 'Admin' },
        { metadata, timeoutMs: 15_000 },
      );
    } finally {
      identity.close();
    }
    browser = new Browserless(stack);
    const mailsBefore = smtp.messages.length;
    await browser.signIn(smtp, admin);
    assert.match(browser.cookie, /session_token=/);
    assert.ok(smtp.messages.length > mailsBefore);
    const session = (await (await browser.fetch('/api/auth/get-session')).json()) as { user: { email: string } };
    assert.equal(session.user.email, admin);
  });

  step('pasien.list with the session cookie', async () => {
    const res = await browser.fetch(`/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.ok(Array.isArray(((await res.json()) as { result: { data: { items: unknown[] } } }).result.data.items));
  });

  step('pasien.list with a bearer token (registration, code flow with PKCE, consent, token)', async () => {
    const iat = await registrationToken();
    const app = await registerClient(stack, iat, {
      client_name: 'Aplikasi Uji Kontainer',
      redirect_uris: [`http://127.0.0.1:${await freePort()}/callback`],
      application_type: 'native',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const tokens = await tokensFor(stack, smtp, app, browser, admin);
    const res = await apiQuery(stack, tokens.access_token);
    assert.equal(res.status, 200, await res.clone().text());
  });

  step('a device-flow approval (RFC 8628): pending, approved by the signed-in user, token, API call', async () => {
    const device = await registerClient(stack, await registrationToken(), {
      client_name: 'Terminal Uji',
      token_endpoint_auth_method: 'none',
      grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
    });
    const code = await fetch(`${stack.gatewayUrl}/api/auth/device/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: device.clientId }),
    });
    assert.equal(code.status, 200);
    const grant = (await code.json()) as { device_code: string; user_code: string; interval: number };
    const poll = async () => {
      const res = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: DEVICE_CODE_GRANT, device_code: grant.device_code, client_id: device.clientId }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    assert.equal((await poll()).body.error, 'authorization_pending');
    // What the dashboard's device page asks identity: the client, to this person.
    const page = await browser.fetch(`/api/auth/device?user_code=${grant.user_code}`);
    assert.equal(page.status, 200);
    assert.ok(((await page.json()) as { client_id?: string }).client_id, 'the request is shown to the person');
    assert.equal((await browser.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: grant.user_code } })).status, 200);
    await new Promise((r) => setTimeout(r, grant.interval * 1000 + 100));
    const answer = await poll();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal((await apiQuery(stack, answer.body.access_token as string)).status, 200);
  });

  step(`SIGTERM: each container drains and exits 0 within terminationGracePeriodSeconds (${chart.gracePeriodSeconds} s)`, async () => {
    for (const service of ['gateway', 'records', 'identity', 'notifier'] as const) {
      const name = e2e.name(service);
      const started = performance.now();
      await run('podman', ['kill', '--signal', 'SIGTERM', name], { timeoutMs: 15_000 });
      const waited = await run('podman', ['wait', name], { timeoutMs: (chart.gracePeriodSeconds + 10) * 1000 });
      const elapsed = performance.now() - started;
      const code = Number(waited.stdout.trim());
      const logs = await logsOf(name, 5);
      assert.equal(code, 0, `${service} exited ${code}:\n${logs}`);
      assert.ok(elapsed < chart.gracePeriodSeconds * 1000, `${service} took ${seconds(elapsed)}`);
      assert.match(logs, /shutting down/);
      say(`${service}: exited 0 ${seconds(elapsed)} after SIGTERM (grace ${chart.gracePeriodSeconds} s)`);
    }
  });
});

/** A single-use initial access token from the tenant admin, over identity's admin gRPC (as the CLI). */
async function registrationToken(): Promise<string> {
  const identity = createClient(IdentityService, stack.urls.identityGrpc);
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${secrets.adminToken}`);
  try {
    return (
      await identity.issueRegistrationToken({ actor: { email: admin }, allowWrite: false, ttlSeconds: 0 }, { metadata, timeoutMs: 15_000 })
    ).token;
  } finally {
    identity.close();
  }
}
