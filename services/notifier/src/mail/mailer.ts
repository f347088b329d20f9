// SMTP through nodemailer. One connection per message (no pool): every attempt starts clean, its
// failure is about that message alone, and an SMTP server that restarts costs nothing.
//
// Two bounds, as RFC 5321 4.5.3.2 sets them. The conversation up to the end of the message (connect,
// TLS, AUTH, MAIL, RCPT, the body) has SMTP_TIMEOUT_MS as a whole. The wait for the answer to the final
// "." has SMTP_DATA_END_TIMEOUT_MS (10 minutes): by then the relay holds the whole message and is
// delivering it, and a sender that gives up sooner sends it again and the recipient gets it twice
// (RFC 1047). The worker renews its lease while it waits, so the long wait never hands the message on.
import { PassThrough, pipeline } from 'node:stream';
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
  /** The conversation up to the end of the message body. */
  timeoutMs: number;
  /** The wait for the answer to the final ".", and any silence of the peer (the socket's idle limit). */
  dataEndTimeoutMs: number;
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
    socketTimeout: smtp.dataEndTimeoutMs,
    dnsTimeout: smtp.timeoutMs,
    // No transaction log: it would carry the recipient (RCPT TO) and, with debug, the body.
    logger: false,
    debug: false,
  };
}

/** What a send passes to the stream plugin below, beside nodemailer's own message data. */
interface BodyWatch {
  onBodyHandedOver?: () => void;
}

export function createMailer(smtp: SmtpSettings, from: Mailbox): Send {
  const transport = nodemailer.createTransport(transportOptions(smtp));
  // A pass-through that the SMTP connection reads the message from. Its 'end' comes when the
  // connection has read the last of the body: what follows is the final "." and the relay's answer.
  // (A transform() stage would end too early: nodemailer composes the message into a buffer before
  // RCPT; a process function's output is what the connection itself reads.)
  transport.use('stream', (mail, done) => {
    const watch = mail.data as BodyWatch;
    mail.message.processFunc((input) => {
      const readByConnection = new PassThrough();
      readByConnection.once('end', () => watch.onBodyHandedOver?.());
      return pipeline(input, readByConnection, () => {});
    });
    done();
  });
  return async (mail, signal) => {
    const conversation = new AbortController();
    const timer = setTimeout(
      () => conversation.abort(new Error(`SMTP conversation took longer than ${smtp.timeoutMs} ms`)),
      smtp.timeoutMs,
    );
    const watch: BodyWatch = { onBodyHandedOver: () => clearTimeout(timer) };
    try {
      return await sendOne(mail, signal ? AbortSignal.any([signal, conversation.signal]) : conversation.signal, watch);
    } finally {
      clearTimeout(timer);
    }
  };

  async function sendOne(mail: OutgoingMail, signal: AbortSignal, watch: BodyWatch): Promise<SendResult> {
    const info = await transport.sendMail({
      ...watch,
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
      signal,
    });
    return { response: info.response };
  }
}
