// SMTP through nodemailer. One connection per message (no pool): every attempt starts clean, its
// failure is about that message alone, and an SMTP server that restarts costs nothing. Each send is
// bounded by SMTP_TIMEOUT_MS as a whole (connect, TLS, AUTH, DATA), which the lease relies on.
import nodemailer from 'nodemailer';
import type { Mailbox } from './address.ts';
import type { Locale, Rendered } from './templates.ts';

export const TLS_MODES = ['implicit', 'starttls', 'opportunistic', 'none'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

/** How to reach the SMTP server; config.ts reads it from SMTP_URL, SMTP_TLS and SMTP_TIMEOUT_MS. */
export interface SmtpSettings {
  host: string;
  port: number;
  user?: string;
  pass?: string;
  tls: TlsMode;
  timeoutMs: number;
}

export interface OutgoingMail extends Rendered {
  to: string;
  messageId: string;
  deliveryId: string;
  locale: Locale;
}

export interface SendResult {
  /** The peer's final answer, e.g. "250 OK: queued as 1234". */
  response: string;
}

export type Send = (mail: OutgoingMail, signal?: AbortSignal) => Promise<SendResult>;

export function transportOptions(smtp: SmtpSettings) {
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.tls === 'implicit',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.pass ?? '' } } : {}),
    connectionTimeout: smtp.timeoutMs,
    greetingTimeout: smtp.timeoutMs,
    socketTimeout: smtp.timeoutMs,
    dnsTimeout: smtp.timeoutMs,
    // No transaction log: it would carry the recipient (RCPT TO) and, with debug, the body.
    logger: false,
    debug: false,
  };
}

export function createMailer(smtp: SmtpSettings, from: Mailbox): Send {
  const transport = nodemailer.createTransport(transportOptions(smtp));
  return async (mail, signal) => {
    const timeout = AbortSignal.timeout(smtp.timeoutMs);
    const info = await transport.sendMail({
      from: from.name ? { name: from.name, address: from.address } : from.address,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      // The same Message-ID on every attempt: should a retry repeat a mail that did arrive (the
      // crash window described in deliveries/worker.ts), receiving systems can recognise the duplicate.
      messageId: mail.messageId,
      headers: {
        'X-SIMRS-Delivery-Id': mail.deliveryId,
        'Content-Language': mail.locale,
        // RFC 3834: automatic mail, so out-of-office replies and auto-forwards leave it alone.
        'Auto-Submitted': 'auto-generated',
        'X-Auto-Response-Suppress': 'All',
      },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    return { response: info.response };
  };
}
