// OAuth helpers for cross-service tests and benchmarks: registration tokens over the admin gRPC API (as
// the CLI issues them), client registration with openid-client, the authorization code flow driven
// with fetch and a session cookie (sign-in by e-mail OTP from the SMTP peer, then consent, through the
// same identity endpoints the dashboard's sign-in and consent pages call), and tokens
// forged with identity's own signing key to test each check the gateway makes on its own.
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient } from '@simrs/proto/grpc';
import { symmetricDecrypt } from 'better-auth/crypto';
import { importJWK, SignJWT } from 'jose';
import type { JWTPayload } from 'jose';
import * as client from 'openid-client';
import pg from 'pg';
import { createServer } from 'node:http';
import { freePort, testServerUrl } from '@simrs/platform/testing';
import { startSmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import { startRedisServer } from '../../scripts/lib/redis.ts';
import { startStack } from '../../scripts/lib/stack.ts';
import type { Stack } from '../../scripts/lib/stack.ts';
import { isOtpMail, otpFrom, seedUsers, sessionCookie } from './users.ts';
import type { TestUser } from './users.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The issuer identifier (what discovery starts from): the gateway's public origin + /api/auth. */
export const issuerUrl = (stack: Stack) => new URL(`${stack.publicUrl}/api/auth`);
export const apiAudience = (stack: Stack) => `${stack.publicUrl}/api`;

/** An initial access token from a tenant administrator, as `npm run admin -- issue-registration-token` gets it. */
export async function issueRegistrationToken(stack: Stack, adminEmail: string, allowWrite = false): Promise<string> {
  const identity = createClient(IdentityService, stack.urls.identityGrpc);
  try {
    return (await identity.issueRegistrationToken({ actor: { email: adminEmail }, allowWrite, ttlSeconds: 0 })).token;
  } finally {
    identity.close();
  }
}

export interface RegisteredClient {
  config: client.Configuration;
  clientId: string;
  clientSecret?: string;
  metadata: client.ClientMetadata;
}

/** The form body of a refresh grant (RFC 6749 §6) by a confidential client authenticating in the body. */
export function refreshGrantForm(app: RegisteredClient, refreshToken: string): URLSearchParams {
  return new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: app.clientId,
    client_secret: app.clientSecret!,
  });
}

/** RFC 7591 registration through the gateway with openid-client (which runs discovery first). */
export async function registerClient(
  stack: Stack,
  initialAccessToken: string,
  metadata: Partial<client.ClientMetadata>,
): Promise<RegisteredClient> {
  const publicClient = metadata.token_endpoint_auth_method === 'none';
  const config = await client.dynamicClientRegistration(
    issuerUrl(stack),
    metadata,
    publicClient ? client.None() : client.ClientSecretPost(),
    {
      initialAccessToken,
      execute: [client.allowInsecureRequests],
    },
  );
  const registered = config.clientMetadata();
  return {
    config,
    clientId: registered.client_id,
    clientSecret: typeof registered.client_secret === 'string' ? registered.client_secret : undefined,
    metadata: registered,
  };
}

/** A cookie jar of one: the session cookie, following Set-Cookie answers. */
export class Browserless {
  cookie = '';
  readonly stack: Stack;
  constructor(stack: Stack) {
    this.stack = stack;
  }

  async fetch(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('cookie', this.cookie);
    headers.set('origin', this.stack.publicUrl);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const target = url.startsWith('/') ? `${this.stack.gatewayUrl}${url}` : url.replace(this.stack.publicUrl, this.stack.gatewayUrl);
    const res = await fetch(target, { ...init, body, headers, redirect: 'manual' });
    const cookie = sessionCookie(res.headers.getSetCookie());
    if (cookie) this.cookie = cookie;
    return res;
  }

  /** Signs in by e-mail OTP; with `oauthQuery` (the signed request the sign-in page got) the answer says where to go next. */
  async signIn(smtp: SmtpPeer, email: string, oauthQuery?: string): Promise<{ redirect?: boolean; url?: string }> {
    const since = smtp.messages.length;
    const sent = await this.fetch('/api/auth/email-otp/send-verification-otp', { method: 'POST', json: { email, type: 'sign-in' } });
    if (sent.status !== 200) throw new Error(`send-verification-otp: ${sent.status}`);
    const otp = otpFrom((await smtp.waitForMail(email, since, isOtpMail)).text);
    const res = await this.fetch('/api/auth/sign-in/email-otp', {
      method: 'POST',
      json: { email, otp, ...(oauthQuery ? { oauth_query: oauthQuery } : {}) },
    });
    if (res.status !== 200) throw new Error(`sign-in/email-otp: ${res.status} ${await res.text()}`);
    return (await res.json()) as { redirect?: boolean; url?: string };
  }
}

/** What the dashboard's consent page shows, from identity's answers to it. */
export interface ConsentShown {
  /** The page it was sent to: /izin, or /pilih-pasien when the application asks for a patient. */
  page: string;
  /** identity's answer for the client (404: not an application of this person's hospital). */
  clientStatus: number;
  clientName: string | null;
  scopes: string[];
}

export interface AuthorizeResult {
  /** Where the flow ended: the client's redirect URI with code (or error), state and iss. */
  callback: URL;
  /** What the consent page showed, when consent was asked. */
  consent?: ConsentShown;
}

const consentPages: readonly string[] = [DASHBOARD.consent, DASHBOARD.patientPicker];
/** The dashboard's pages identity sends a browser to during authorization. */
const flowPages: readonly string[] = [DASHBOARD.signIn, ...consentPages];

/** What the consent page asks identity for the request in `query` (the client by id, never by the query's word). */
export async function consentShown(browser: Browserless, location: URL): Promise<ConsentShown> {
  const clientId = location.searchParams.get('client_id') ?? '';
  const res = await browser.fetch(`/api/auth/account/oauth-client?clientId=${encodeURIComponent(clientId)}`);
  const body = (await res.json()) as { name?: string | null };
  const scopes = (location.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
  return { page: location.pathname, clientStatus: res.status, clientName: res.ok ? (body.name ?? null) : null, scopes };
}

/**
 * The authorization code flow as a browser runs it through the dashboard's pages, with fetch:
 * authorize, the sign-in page's OTP sign-in carrying the signed request, the consent page, its answer.
 */
export async function authorizeWithFetch(
  stack: Stack,
  smtp: SmtpPeer,
  browser: Browserless,
  authorizationUrl: URL,
  options: { email: string; accept?: boolean },
): Promise<AuthorizeResult> {
  let location = await follow(browser, authorizationUrl.toString());
  if (location.pathname === DASHBOARD.signIn) {
    const next = await browser.signIn(smtp, options.email, location.search.slice(1));
    if (!next.url) throw new Error('sign-in did not continue the authorization');
    location = new URL(next.url, stack.publicUrl);
  }
  let consent: ConsentShown | undefined;
  if (consentPages.includes(location.pathname)) {
    consent = await consentShown(browser, location);
    const answer = await browser.fetch('/api/auth/oauth2/consent', {
      method: 'POST',
      json: { accept: options.accept ?? true, oauth_query: location.search.slice(1) },
    });
    const body = (await answer.json()) as { url?: string; error?: string; error_description?: string };
    if (!body.url) throw new Error(`consent: ${answer.status} ${JSON.stringify(body)}`);
    location = new URL(body.url);
  }
  return { callback: location, consent };
}

/**
 * Where a browser navigating to `url` is sent next: a redirect's Location, or the `{redirect, url}`
 * answer Better Auth gives when it takes the request for a script's fetch.
 */
export async function navigate(browser: Browserless, url: string): Promise<{ status: number; next?: URL }> {
  const res = await browser.fetch(url, { headers: { 'sec-fetch-mode': 'navigate', accept: 'text/html' } });
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) {
    await res.arrayBuffer();
    return { status: res.status, next: new URL(location, url) };
  }
  const text = await res.text();
  if (res.headers.get('content-type')?.includes('json')) {
    const body = JSON.parse(text) as { redirect?: boolean; url?: string };
    if (body.redirect && body.url) return { status: res.status, next: new URL(body.url, url) };
  }
  return { status: res.status };
}

/** Follows redirects inside the gateway; stops at the first URL outside it (or a page). */
async function follow(browser: Browserless, url: string): Promise<URL> {
  let current = new URL(url);
  for (let hops = 0; hops < 5; hops++) {
    const { next } = await navigate(browser, current.toString());
    if (!next) return current;
    current = next;
    if (flowPages.includes(current.pathname) || !current.toString().startsWith(browser.stack.publicUrl)) return current;
  }
  return current;
}

export interface CodeFlow {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

/** An authorization request with PKCE S256, state and nonce, as openid-client builds it. */
export async function codeFlow(
  config: client.Configuration,
  redirectUri: string,
  scope: string,
  extra: Record<string, string> = {},
): Promise<CodeFlow> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  return { url, verifier, state, nonce };
}

/** The whole code flow to tokens: authorize, sign in or reuse the session, consent, token call. */
export async function tokensFor(
  stack: Stack,
  smtp: SmtpPeer,
  registered: RegisteredClient,
  browser: Browserless,
  email: string,
  scope = 'openid simrs:read offline_access',
): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
  const redirectUri = (registered.metadata.redirect_uris as string[])[0]!;
  const flow = await codeFlow(registered.config, redirectUri, scope);
  const { callback } = await authorizeWithFetch(stack, smtp, browser, flow.url, { email });
  return client.authorizationCodeGrant(registered.config, callback, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
  });
}

/** Calls a tRPC query through the gateway with a bearer token. */
export async function apiQuery(
  stack: Stack,
  accessToken: string,
  procedure = 'pasien.list',
  input: unknown = { limit: 1 },
): Promise<Response> {
  return fetch(`${stack.gatewayUrl}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
}

/** Polls `check` until it holds or `withinMs` passes; resolves how long it took (ms), or -1. */
export async function within(withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (performance.now() - started <= withinMs) {
    if (await check()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 25));
  }
  return -1;
}

/**
 * A token signed with identity's current signing key but with claims (or header) of the test's
 * choosing: each gateway check (audience, issuer, expiry, type) can then be tested on its own.
 */
export async function forgeWithIdentityKey(
  stack: Stack,
  payload: JWTPayload,
  header: { typ?: string } = { typ: 'at+jwt' },
): Promise<string> {
  const db = new pg.Client({ connectionString: stack.databases.identity });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: string; privateKey: string; alg: string | null }>(
      `select id, "privateKey", alg from jwks where "expiresAt" is null or "expiresAt" > now() order by "createdAt" desc limit 1`,
    );
    const row = rows[0];
    if (!row) throw new Error('identity has no signing key yet');
    const jwk = JSON.parse(await symmetricDecrypt({ key: stack.secrets.auth, data: JSON.parse(row.privateKey) as string })) as Record<
      string,
      unknown
    >;
    const alg = row.alg ?? 'EdDSA';
    const key = await importJWK(jwk, alg);
    return await new SignJWT(payload).setProtectedHeader({ alg, kid: row.id, ...header }).sign(key);
  } finally {
    await db.end();
  }
}

export interface OAuthWorld {
  stack: Stack;
  smtp: SmtpPeer;
  redisUrl: string;
  /** A loopback redirect URI answered by a tiny server, and a second path on it for post-logout redirects. */
  redirectUri: string;
  logoutUri: string;
  stop(): Promise<void>;
}

/** A whole stack (real processes, a redis-server, the SMTP peer) with users seeded, for an OAuth test file. */
export async function startOAuthWorld(name: string, users: TestUser[]): Promise<OAuthWorld> {
  const [redis, smtp] = await Promise.all([startRedisServer(), startSmtpPeer()]);
  const port = await freePort();
  const callbackServer = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`callback ${req.url}`));
  await new Promise<void>((resolve) => callbackServer.listen(port, '127.0.0.1', resolve));
  const stack = await startStack({
    postgresUrl: testServerUrl,
    dbPrefix: `t_${name}_${Date.now()}_`,
    redisUrl: redis.url,
    smtpUrl: smtp.url,
  });
  await seedUsers(stack, users);
  return {
    stack,
    smtp,
    redisUrl: redis.url,
    redirectUri: `http://127.0.0.1:${port}/callback`,
    logoutUri: `http://127.0.0.1:${port}/signed-out`,
    async stop() {
      await stack.stop();
      await Promise.all([redis.stop(), smtp.stop(), new Promise((r) => callbackServer.close(r))]);
    },
  };
}
