// Talking to SATUSEHAT: its client-credentials token, cached per hospital in Redis so that every replica
// shares it (sealed there, under a key that names the hospital only), dropped before it expires, and
// after a failed request asked for again no sooner than SATUSEHAT_TOKEN_RETRY_MS; and one FHIR call
// with a time limit, its answer sorted into what is worth retrying and what the platform refused.
import { createHash } from 'node:crypto';
import type { Redis } from '@simrs/platform/redis';
import { open, seal } from '@simrs/platform/seal';

/** The platform could not be reached or asked us to wait: worth trying again later. */
export class PlatformUnavailable extends Error {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs = 0) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** The platform refused what we sent (a 4xx with its OperationOutcome): sending it again will not help. */
export class PlatformRefused extends Error {}

export interface Connection {
  tenantId: string;
  organizationId: string;
  clientId: string;
  clientSecret: string;
  /** The platform's base URL (staging or production). */
  baseUrl: string;
}

export interface PlatformDeps {
  redis: Redis;
  sealKey: Buffer;
  timeoutMs: number;
  tokenRetryMs: number;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The client id is part of the name (hashed) so that new credentials never meet the old ones' token.
const tokenKey = (c: Connection) => `satusehat:token:${c.tenantId}:${createHash('sha256').update(c.clientId).digest('hex').slice(0, 16)}`;
const failedKey = (c: Connection) => `satusehat:token-failed:${c.tenantId}`;
const lockKey = (c: Connection) => `satusehat:token-lock:${c.tenantId}`;

/** The platform's own words from an OperationOutcome (or an OAuth fault), for staff to read. */
export function platformWords(body: unknown): string {
  const b = body as Json | undefined;
  const issues = (b?.issue as Json[] | undefined) ?? [];
  const words = issues.map((i) => i.details?.text ?? i.diagnostics ?? i.code).filter(Boolean);
  if (words.length) return words.join('; ');
  return String(b?.fault?.faultstring ?? b?.error_description ?? b?.error ?? 'no explanation given');
}

async function fetchWithin(url: string, init: RequestInit, timeoutMs: number): Promise<{ status: number; body: Json; headers: Headers }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: Json = {};
    try {
      body = text ? (JSON.parse(text) as Json) : {};
    } catch {
      body = { error: text.slice(0, 200) };
    }
    return { status: res.status, body, headers: res.headers };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new PlatformUnavailable(timedOut ? 'SATUSEHAT did not answer in time' : 'SATUSEHAT could not be reached');
  }
}

/** Asks the token endpoint (no cache): the token and its lifetime in seconds, or why not. */
export async function requestToken(c: Connection, timeoutMs: number): Promise<{ token: string; expiresIn: number }> {
  const { status, body } = await fetchWithin(
    `${c.baseUrl}/oauth2/v1/accesstoken?grant_type=client_credentials`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: c.clientId, client_secret: c.clientSecret }),
    },
    timeoutMs,
  );
  if (status >= 500 || status === 429) throw new PlatformUnavailable(`SATUSEHAT's token endpoint answered ${status}`);
  if (status !== 200 || typeof body.access_token !== 'string')
    throw new PlatformRefused(`SATUSEHAT refused the credentials: ${platformWords(body)}`);
  // SATUSEHAT gives expires_in as a string of seconds.
  const expiresIn = Number(body.expires_in);
  return { token: body.access_token, expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3_600 };
}

export function platformClient(deps: PlatformDeps) {
  const { redis, sealKey } = deps;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function cached(c: Connection): Promise<string | undefined> {
    const sealed = await redis.get(tokenKey(c));
    return sealed ? open(sealKey, sealed, tokenKey(c)) : undefined;
  }

  /** The hospital's token: from the cache, else from one request among all replicas (the others wait for it). */
  async function token(c: Connection): Promise<string> {
    const known = await cached(c);
    if (known) return known;
    const failedFor = await redis.pttl(failedKey(c));
    if (failedFor > 0) throw new PlatformUnavailable((await redis.get(failedKey(c))) ?? 'token request failed', failedFor);
    const mine = await redis.set(lockKey(c), '1', 'PX', deps.timeoutMs + 1_000, 'NX');
    if (!mine) {
      for (let waited = 0; waited < deps.timeoutMs + 1_000; waited += 100) {
        await sleep(100);
        const got = await cached(c);
        if (got) return got;
        if ((await redis.exists(failedKey(c))) || !(await redis.exists(lockKey(c)))) break;
      }
      throw new PlatformUnavailable('waiting for another replica to fetch the token', 1_000);
    }
    try {
      const { token: fresh, expiresIn } = await requestToken(c, deps.timeoutMs);
      // Dropped before the platform's expiry (a tenth of its life, at most five minutes), so no request goes out with a token about to lapse.
      const ttlMs = expiresIn * 1000 - Math.min(expiresIn * 100, 300_000);
      await redis.set(tokenKey(c), seal(sealKey, fresh, tokenKey(c)), 'PX', Math.max(ttlMs, 1_000));
      return fresh;
    } catch (err) {
      await redis.set(failedKey(c), (err as Error).message, 'PX', deps.tokenRetryMs);
      throw err instanceof PlatformRefused ? new PlatformUnavailable(err.message, deps.tokenRetryMs) : err;
    } finally {
      await redis.del(lockKey(c));
    }
  }

  /** One FHIR interaction under the hospital's token; a token the platform no longer takes is dropped and fetched once more. */
  async function call(c: Connection, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Json> {
    for (let attempt = 0; ; attempt++) {
      const bearer = await token(c);
      const res = await fetchWithin(
        `${c.baseUrl}/fhir-r4/v1${path}`,
        {
          method,
          headers: {
            authorization: `Bearer ${bearer}`,
            accept: 'application/fhir+json',
            ...(body ? { 'content-type': 'application/fhir+json' } : {}),
            ...headers,
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        },
        deps.timeoutMs,
      );
      if (res.status === 401 && attempt === 0) {
        await redis.del(tokenKey(c));
        continue;
      }
      if (res.status === 429)
        throw new PlatformUnavailable('SATUSEHAT asked us to slow down (429)', 1000 * Number(res.headers.get('retry-after') ?? 1));
      if (res.status >= 500 || res.status === 401)
        throw new PlatformUnavailable(`SATUSEHAT answered ${res.status}: ${platformWords(res.body)}`);
      if (res.status >= 400) throw new PlatformRefused(`${method} ${path.split('?')[0]}: ${platformWords(res.body)}`);
      return res.body;
    }
  }

  return {
    call,
    /** Forgets the hospital's cached token and its failure (new credentials were saved). */
    async forget(c: Pick<Connection, 'tenantId' | 'clientId'>): Promise<void> {
      await redis.del(tokenKey(c as Connection), failedKey(c as Connection));
    },
  };
}
export type PlatformClient = ReturnType<typeof platformClient>;
