// What to do after a failed send: wait and retry (4xx, connection trouble, anything unknown) or give
// up (the peer refused this message for good), and how long to wait.
import { scrubAddresses } from '../mail/index.ts';

export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
}

/**
 * Exponential backoff with "equal jitter": the n-th retry waits between half and all of
 * min(maxMs, baseMs * 2^(n-1)), so retries spread out (no thundering herd when the SMTP server comes
 * back) but never collapse to zero.
 */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export interface Failure {
  /** True when sending the same message again would get the same refusal. */
  permanent: boolean;
  /** A short description safe to store and log: the SMTP code and text, addresses removed. */
  summary: string;
}

interface MailError {
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  message?: unknown;
}

/**
 * A 5xx is permanent only when it is about this message: the envelope (MAIL FROM / RCPT TO,
 * nodemailer's EENVELOPE) or the content (DATA, EMESSAGE). A 5xx about the session itself (the
 * greeting, EHLO, AUTH with wrong credentials, TLS) is the operator's problem, not the message's:
 * dead-lettering every message because a password was rotated wrongly would lose them all, so those
 * are retried like any transient failure until the attempts run out.
 */
export function classify(err: unknown): Failure {
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as MailError;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const permanent =
    responseCode !== undefined && responseCode >= 500 && responseCode < 600 && (code === 'EENVELOPE' || code === 'EMESSAGE');
  const detail = typeof e.response === 'string' && e.response ? e.response : typeof e.message === 'string' ? e.message : 'unknown error';
  const summary = scrubAddresses(`${code ? `${code}: ` : ''}${detail}`)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500);
  return { permanent, summary };
}
