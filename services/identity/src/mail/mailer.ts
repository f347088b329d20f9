// All outbound mail goes through the notifier's SendEmail; identity never speaks SMTP. Sends are
// fire-and-forget from the request's point of view (the notifier queues durably anyway), so a known
// address answers as fast as an unknown one. The idempotency key is a random id per send: it names
// the message, never its content.
import { randomUUID } from 'node:crypto';
import { createClient } from '@simrs/proto/grpc';
import { NotifierService, Template } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { ROLE_LABELS } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import type { Logger } from '@simrs/platform/logger';

export type Locale = 'id' | 'en';

export interface Recipient {
  email: string;
  name?: string;
  tenantName?: string;
}

export interface Mailer {
  signInOtp(to: Recipient, otp: string, ttlSeconds: number): void;
  magicLink(to: Recipient, url: string, ttlSeconds: number): void;
  invitation(to: Recipient, url: string, role: Role, inviterName?: string): void;
  securityNotice(to: Recipient, event: 'passkey_added' | 'other_sessions_revoked', details: { passkeyName?: string; url?: string }): void;
  /** Resolves when every send started so far has been handed to the notifier (or failed). */
  flush(): Promise<void>;
  close(): void;
}

const minutes = (seconds: number) => String(Math.max(1, Math.ceil(seconds / 60)));

export function createMailer(address: string, locale: Locale, log: Logger): Mailer {
  const client = createClient(NotifierService, address);
  const pending = new Set<Promise<void>>();

  function send(purpose: string, to: Recipient, template: Template, parameters: Record<string, string>): void {
    const idempotencyKey = `identity:${purpose}:${randomUUID()}`;
    const common: Record<string, string> = {};
    if (to.name) common.user_name = to.name;
    if (to.tenantName) common.tenant_name = to.tenantName;
    const job = client
      .sendEmail({ idempotencyKey, recipient: to.email, template, locale, parameters: { ...common, ...parameters } }, { timeoutMs: 10_000 })
      .then(
        (res) => log.info({ purpose, deliveryId: res.deliveryId }, 'mail queued'),
        // The address stays out of the log; the key ties the failure to the attempt.
        (err: unknown) => log.error({ purpose, idempotencyKey, err: (err as Error).message }, 'mail not queued'),
      )
      .finally(() => pending.delete(job));
    pending.add(job);
  }

  return {
    signInOtp(to, otp, ttl) {
      send('sign-in-otp', to, Template.SIGN_IN_OTP, { otp, expires_minutes: minutes(ttl) });
    },
    magicLink(to, url, ttl) {
      send('magic-link', to, Template.MAGIC_LINK, { url, expires_minutes: minutes(ttl) });
    },
    invitation(to, url, role, inviterName) {
      send('invitation', to, Template.INVITATION, {
        url,
        role: ROLE_LABELS[role][locale],
        ...(inviterName ? { inviter_name: inviterName } : {}),
      });
    },
    securityNotice(to, event, details) {
      send('security-notice', to, Template.SECURITY_NOTICE, {
        event,
        occurred_at: new Date().toISOString(),
        ...(details.passkeyName ? { passkey_name: details.passkeyName } : {}),
        ...(details.url ? { url: details.url } : {}),
      });
    },
    async flush() {
      await Promise.allSettled([...pending]);
    },
    close() {
      client.close();
    },
  };
}
