// Integration-test fixture for identity: a throwaway Postgres database, a private redis-server, a real
// SMTP peer (smtp-server, parsed with postal-mime), the real notifier process and the real identity
// process. Everything is torn down in reverse order. Not imported by production code (its own folder, so
// that nothing the services load pulls in the test-only SMTP peer).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort, startService, throwawayDatabase, waitFor, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { decodeRevocation, REVOCATION_CHANNEL } from '@simrs/contracts/revocation';
import type { Revocation } from '@simrs/contracts/revocation';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { ReceivedMail as Mail, SmtpPeer } from '@simrs/platform/testing/smtp-peer';

export interface RedisServer {
  url: string;
  client: Redis;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 200 });
  client.on('error', () => {});
  await waitFor('redis-server', async () => {
    if (client.status !== 'ready') await client.connect().catch(() => undefined);
    return (await client.ping()) === 'PONG';
  });
  return {
    url,
    client,
    async stop() {
      client.disconnect();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export function otpFrom(mail: Mail): string {
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error('no 6-digit code in the mail');
  return code;
}

export function linkFrom(mail: Mail): string {
  const url = /https?:\/\/\S+\/api\/auth\/magic-link\/verify\?\S+/.exec(mail.text)?.[0];
  if (!url) throw new Error('no sign-in link in the mail');
  return url.replace(/[>).,]+$/, '');
}

/** A cookie jar and the headers the gateway would add, for one simulated browser. */
export class Client {
  readonly cookies = new Map<string, string>();
  readonly base: string;
  readonly origin: string;
  readonly ip: string;
  constructor(base: string, origin: string, ip = `10.${rnd()}.${rnd()}.${rnd()}`) {
    this.base = base;
    this.origin = origin;
    this.ip = ip;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async fetch(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, origin: this.origin, ...init.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(new URL(path, this.base), {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim())) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  post(path: string, body: unknown = {}): Promise<Response> {
    return this.fetch(path, { body });
  }
}

const rnd = () => Math.floor(Math.random() * 250) + 1;

export interface Fixture {
  db: { url: string };
  redis: RedisServer;
  smtp: SmtpPeer;
  notifier: ServiceProcess;
  identity: ServiceProcess;
  httpUrl: string;
  grpcAddress: string;
  publicUrl: string;
  authSecret: string;
  env: Record<string, string>;
  client(ip?: string): Client;
  /** Restarts identity with extra settings (same database and Redis). */
  restartIdentity(extra: Record<string, string>): Promise<void>;
  /** Starts the notifier again (same ports, database and SMTP peer) after `notifier.stop()`. */
  restartNotifier(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `selfPublicUrl`: identity's own address (http://localhost:<port>) is the public URL, for browser
 * tests that talk to identity directly instead of through the gateway.
 */
export async function startFixture(
  label: string,
  extraEnv: Record<string, string> = {},
  options: { selfPublicUrl?: boolean } = {},
): Promise<Fixture> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const db = await throwawayDatabase(`id_${label}`);
    stops.push(() => db.drop());
    const notifierDb = await throwawayDatabase(`idn_${label}`);
    stops.push(() => notifierDb.drop());
    const redis = await startRedis();
    stops.push(() => redis.stop());
    const smtp = await startSmtpPeer();
    stops.push(() => smtp.stop());

    const [notifierHttp, notifierGrpc, httpPort, grpcPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const notifierEnv = {
      HOST: '127.0.0.1',
      HTTP_PORT: String(notifierHttp),
      GRPC_PORT: String(notifierGrpc),
      DATABASE_URL: notifierDb.url,
      SMTP_URL: smtp.url,
      MAIL_POLL_MS: '50',
      LOG_LEVEL: 'warn',
    };
    let notifier = startService('notifier', 'services/notifier', notifierEnv);
    stops.push(() => notifier.stop());
    await waitForReady(`http://127.0.0.1:${notifierHttp}/readyz`);

    const authSecret = randomBytes(32).toString('base64url');
    const publicUrl = options.selfPublicUrl ? `http://localhost:${httpPort}` : (extraEnv.PUBLIC_URL ?? 'http://localhost:8080');
    const env = {
      HOST: '127.0.0.1',
      HTTP_PORT: String(httpPort),
      GRPC_PORT: String(grpcPort),
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      NOTIFIER_GRPC: `127.0.0.1:${notifierGrpc}`,
      AUTH_SECRET: authSecret,
      SEED_DEMO_DATA: 'true',
      LOG_LEVEL: 'info',
      ...extraEnv,
      PUBLIC_URL: publicUrl,
    };
    const httpUrl = `http://127.0.0.1:${httpPort}`;
    const fixture: Fixture = {
      db,
      redis,
      smtp,
      notifier,
      identity: startService('identity', 'services/identity', env),
      httpUrl,
      grpcAddress: `127.0.0.1:${grpcPort}`,
      publicUrl,
      authSecret,
      env,
      client: (ip?: string) => new Client(httpUrl, publicUrl, ip),
      async restartIdentity(extra) {
        await fixture.identity.stop();
        fixture.env = { ...env, ...extra };
        fixture.identity = startService('identity', 'services/identity', fixture.env);
        await waitForReady(`${httpUrl}/readyz`, 60_000);
      },
      async restartNotifier() {
        notifier = fixture.notifier = startService('notifier', 'services/notifier', notifierEnv);
        await waitForReady(`http://127.0.0.1:${notifierHttp}/readyz`);
      },
      async stop() {
        await fixture.identity.stop();
        for (const stop of stops.reverse()) await stop().catch(() => {});
      },
    };
    try {
      await waitForReady(`${httpUrl}/readyz`, 60_000);
    } catch (err) {
      console.error(fixture.identity.lines.slice(-30).join('\n'));
      await fixture.identity.stop();
      throw err;
    }
    return fixture;
  } catch (err) {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    throw err;
  }
}

/** Signs `email` in with an e-mail code read from the SMTP peer; the client keeps the cookie. */
export async function signInWithOtp(f: Fixture, client: Client, email: string): Promise<void> {
  const since = f.smtp.messages.length;
  const sent = await client.post('/api/auth/email-otp/send-verification-otp', { email, type: 'sign-in' });
  if (sent.status !== 200) throw new Error(`send-verification-otp: ${sent.status} ${await sent.text()}`);
  const otp = otpFrom(await f.smtp.waitForMail(email, since));
  const res = await client.post('/api/auth/sign-in/email-otp', { email, otp });
  if (res.status !== 200) throw new Error(`sign-in/email-otp: ${res.status} ${await res.text()}`);
}

/** Collects into `into` every revocation identity publishes from now on, as a gateway hears them. */
export async function hearRevocations(f: Fixture, into: Revocation[]): Promise<{ stop(): void }> {
  const subscriber = f.redis.client.duplicate();
  subscriber.on('message', (_channel: string, message: string) => {
    const revocation = decodeRevocation(message);
    if (revocation) into.push(revocation);
  });
  await subscriber.subscribe(REVOCATION_CHANNEL);
  return { stop: () => subscriber.disconnect() };
}
