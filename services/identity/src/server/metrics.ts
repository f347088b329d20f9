// identity's metrics, read off the HTTP answers of Better Auth (http.ts calls observeAuthResponse),
// so that every outcome counts, including refusals by a before-hook (rate limits) that Better Auth's
// after-hooks never see: sign-ins by method and outcome, OTP and magic-link failures by reason, codes
// and links requested, tokens issued by grant, device codes issued; and, at scrape time, device codes
// pending plus the Postgres pool and Redis connection. Labels are fixed sets or error codes that
// Better Auth itself produced; never an address, a token or an id.
import { meter } from '@simrs/platform/metrics';
import type { Pool } from '@simrs/platform/db';

const m = meter('identity');
const signIns = m.createCounter('identity.sign_ins', {
  description: 'Sign-in attempts by method (otp, magic_link, passkey) and outcome (success, failure, rate_limited, error).',
});
const failures = m.createCounter('identity.sign_in.failures', {
  description: 'Failed sign-in attempts by method and reason (the error code, e.g. INVALID_OTP, INVALID_TOKEN, TOO_MANY_ATTEMPTS).',
});
const requested = m.createCounter('identity.codes.requested', {
  description: 'Sign-in codes and links requested by kind (otp, magic_link) and outcome (accepted, rate_limited, refused, error).',
});
const tokens = m.createCounter('identity.tokens.issued', { description: 'OAuth tokens issued at /oauth2/token, by grant type.' });
const tokenErrors = m.createCounter('identity.token.errors', {
  description: 'Refused /oauth2/token requests by grant type and OAuth error.',
});
const deviceCodes = m.createCounter('identity.device_codes.issued', {
  description: 'Device codes issued (RFC 8628 device authorization requests).',
});

// Maps: the keys come from the request (its path, its grant_type), and a plain object would answer
// `constructor` with what every object inherits.
const SIGN_IN = new Map<string, 'otp' | 'magic_link' | 'passkey'>([
  ['/sign-in/email-otp', 'otp'],
  ['/magic-link/verify', 'magic_link'],
  ['/passkey/verify-authentication', 'passkey'],
]);
const SEND = new Map<string, 'otp' | 'magic_link'>([
  ['/email-otp/send-verification-otp', 'otp'],
  ['/sign-in/magic-link', 'magic_link'],
]);
const GRANTS = new Map<string, string>([
  ['authorization_code', 'authorization_code'],
  ['refresh_token', 'refresh_token'],
  ['client_credentials', 'client_credentials'],
  ['urn:ietf:params:oauth:grant-type:device_code', 'device_code'],
]);

const code = (value: unknown): string => (typeof value === 'string' && /^[A-Za-z_]{1,48}$/.test(value) ? value.toUpperCase() : 'OTHER');

function jsonField(body: Buffer | undefined, ...names: string[]): unknown {
  if (!body?.length || body.length > 16_384) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    for (const n of names) if (parsed[n] !== undefined) return parsed[n];
  } catch {
    // not JSON
  }
  return undefined;
}

/** The grant type of a token request (form-encoded, as OAuth clients send it, or JSON). */
function grantOf(body: Buffer | undefined, contentType: string | undefined): string {
  if (!body?.length) return 'other';
  const raw = /json/i.test(contentType ?? '')
    ? jsonField(body, 'grant_type')
    : new URLSearchParams(body.toString('utf8')).get('grant_type');
  return typeof raw === 'string' ? (GRANTS.get(raw) ?? 'other') : 'other';
}

export interface AuthExchange {
  /** The path below /api/auth, e.g. `/sign-in/email-otp`. */
  path: string;
  method: string;
  status: number;
  location?: string | null;
  requestBody?: Buffer;
  requestType?: string;
  responseBody?: Buffer;
}

/** A sign-in attempt by its outcome, and a failure by its reason. */
function countSignIn(method: 'otp' | 'magic_link' | 'passkey', x: AuthExchange): void {
  // A magic link answers with a redirect either way: failures go to the error callback with ?error=.
  const redirectError = x.status >= 300 && x.status < 400 && x.location ? new URL(x.location, 'http://x').searchParams.get('error') : null;
  if (x.status === 429) signIns.add(1, { method, outcome: 'rate_limited' });
  else if (x.status >= 500) signIns.add(1, { method, outcome: 'error' });
  else if (x.status >= 400 || redirectError) {
    signIns.add(1, { method, outcome: 'failure' });
    failures.add(1, { method, reason: code(redirectError ?? jsonField(x.responseBody, 'code')) });
  } else signIns.add(1, { method, outcome: 'success' });
}

/** A code or link requested, by its outcome. */
function countRequested(kind: 'otp' | 'magic_link', status: number): void {
  const outcome = status === 429 ? 'rate_limited' : status >= 500 ? 'error' : status >= 400 ? 'refused' : 'accepted';
  requested.add(1, { kind, outcome });
}

/** A token request: issued, or refused with its OAuth error; by grant type. */
function countToken(x: AuthExchange): void {
  const grant_type = grantOf(x.requestBody, x.requestType);
  if (x.status === 200) tokens.add(1, { grant_type });
  else tokenErrors.add(1, { grant_type, error: code(jsonField(x.responseBody, 'error', 'code')).toLowerCase() });
}

/** Counts one answered Better Auth request. Never throws. */
export function observeAuthResponse(x: AuthExchange): void {
  try {
    const method = SIGN_IN.get(x.path);
    if (method) return countSignIn(method, x);
    const kind = SEND.get(x.path);
    if (kind) return countRequested(kind, x.status);
    if (x.path === '/oauth2/token' && x.method === 'POST') return countToken(x);
    if ((x.path === '/device/code' || x.path === '/oauth2/device-authorization') && x.status === 200) deviceCodes.add(1);
  } catch {
    // metrics never break a request
  }
}

/** Device codes waiting for the user's approval (Better Auth's `deviceCode` table), read at scrape time. */
export function observeDeviceCodes(pool: Pool, untraced: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn()): void {
  const pending = m.createObservableGauge('identity.device_codes.pending', {
    description: 'Device codes issued, not yet approved, denied or expired.',
  });
  pending.addCallback(async (result) => {
    try {
      const { rows } = await untraced(() =>
        pool.query<{ n: string }>(`select count(*) as n from "deviceCode" where status = 'pending' and "expiresAt" > now()`),
      );
      result.observe(Number(rows[0]?.n ?? 0));
    } catch {
      // table missing (device grant off) or Postgres down: no observation this scrape
    }
  });
}
