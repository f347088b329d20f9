// All outbound mail goes through the notifier's SendEmail, by way of the outbox (outbox.ts): each
// method resolves once the mail is stored in identity's database, and the relay hands it over. An
// address that gets no mail (unknown, inactive) goes through the same statement, storing nothing, so
// that both answers look and take the same.
import { Template } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { ROLE_LABELS } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import type { Outbox } from './outbox.ts';

export type Locale = 'id' | 'en';

export interface Recipient {
  email: string;
  name?: string;
  tenantName?: string;
  /** The language the person chose (the dashboard's), when the request said; else the mailer's. */
  locale?: Locale;
}

export interface Mailer {
  /** `to` undefined: no mail, in the same time as one. */
  signInOtp(to: Recipient | undefined, otp: string, ttlSeconds: number): Promise<void>;
  magicLink(to: Recipient | undefined, url: string, ttlSeconds: number): Promise<void>;
  invitation(to: Recipient, url: string, role: Role, inviterName?: string): Promise<void>;
  securityNotice(
    to: Recipient,
    event: 'passkey_added' | 'other_sessions_revoked',
    details: { passkeyName?: string; url?: string },
  ): Promise<void>;
}

const minutes = (seconds: number) => String(Math.max(1, Math.ceil(seconds / 60)));

export function createMailer(outbox: Outbox, locale: Locale): Mailer {
  function send(purpose: string, to: Recipient | undefined, template: Template, parameters: Record<string, string>): Promise<void> {
    if (!to) return outbox.put(purpose, undefined);
    const common: Record<string, string> = {};
    if (to.name) common.user_name = to.name;
    if (to.tenantName) common.tenant_name = to.tenantName;
    return outbox.put(purpose, { recipient: to.email, template, locale: to.locale ?? locale, parameters: { ...common, ...parameters } });
  }

  return {
    signInOtp(to, otp, ttl) {
      return send('sign-in-otp', to, Template.SIGN_IN_OTP, { otp, expires_minutes: minutes(ttl) });
    },
    magicLink(to, url, ttl) {
      return send('magic-link', to, Template.MAGIC_LINK, { url, expires_minutes: minutes(ttl) });
    },
    invitation(to, url, role, inviterName) {
      return send('invitation', to, Template.INVITATION, {
        url,
        role: ROLE_LABELS[role][to.locale ?? locale],
        ...(inviterName ? { inviter_name: inviterName } : {}),
      });
    },
    securityNotice(to, event, details) {
      return send('security-notice', to, Template.SECURITY_NOTICE, {
        event,
        occurred_at: new Date().toISOString(),
        ...(details.passkeyName ? { passkey_name: details.passkeyName } : {}),
        ...(details.url ? { url: details.url } : {}),
      });
    },
  };
}
