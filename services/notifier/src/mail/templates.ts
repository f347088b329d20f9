// The mails the notifier can send, in Bahasa Indonesia ("id") and English ("en"), each as a subject,
// a plain-text body and an HTML body. A template is a list of blocks (paragraph, code, button, note);
// one layout turns blocks into text and one into HTML, and the HTML layout escapes every value, so no
// template can forget to. Parameters are validated before a message is stored
// (deliveries/validation.ts), so rendering at send time cannot fail on input.

export const TEMPLATE_NAMES = ['sign_in_otp', 'magic_link', 'invitation', 'security_notice'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export const LOCALES = ['id', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

export const SECURITY_EVENTS = ['passkey_added', 'other_sessions_revoked'] as const;

/** What each parameter may hold; `required` ones must be present. */
export interface ParamSpec {
  required?: boolean;
  kind: 'text' | 'digits' | 'url' | 'minutes' | 'event' | 'timestamp' | 'time_zone';
  max: number;
}

const text = (max = 200): ParamSpec => ({ kind: 'text', max });
const COMMON: Record<string, ParamSpec> = { tenant_name: text(), user_name: text() };

export const PARAMETERS: Record<TemplateName, Record<string, ParamSpec>> = {
  sign_in_otp: { ...COMMON, otp: { required: true, kind: 'digits', max: 10 }, expires_minutes: { kind: 'minutes', max: 4 } },
  magic_link: { ...COMMON, url: { required: true, kind: 'url', max: 2048 }, expires_minutes: { kind: 'minutes', max: 4 } },
  invitation: { ...COMMON, url: { required: true, kind: 'url', max: 2048 }, inviter_name: text(), role: text(100) },
  security_notice: {
    ...COMMON,
    event: { required: true, kind: 'event', max: 40 },
    passkey_name: text(),
    occurred_at: { kind: 'timestamp', max: 40 },
    time_zone: { kind: 'time_zone', max: 64 },
    url: { kind: 'url', max: 2048 },
  },
};

/** Minutes an OTP or a magic link stays valid when the caller does not say (Better Auth's 300 s). */
export const DEFAULT_EXPIRES_MINUTES = 5;
export const DEFAULT_TIME_ZONE = 'Asia/Jakarta';
const PRODUCT = 'SIMRS';

type Block =
  | { kind: 'p'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'button'; label: string; url: string }
  | { kind: 'note'; text: string };

interface Content {
  subject: string;
  blocks: Block[];
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

export interface RenderContext {
  /** When the message was queued: the event time of a security notice without occurred_at. */
  createdAt: Date;
}

type Params = Record<string, string>;

function formatTime(locale: Locale, params: Params, fallback: Date): string {
  const at = params.occurred_at ? new Date(params.occurred_at) : fallback;
  return new Intl.DateTimeFormat(locale === 'id' ? 'id-ID' : 'en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: params.time_zone || DEFAULT_TIME_ZONE,
    timeZoneName: 'short',
  }).format(at);
}

const STRINGS = {
  id: {
    hello: (name?: string) => (name ? `Halo ${name},` : 'Halo,'),
    footer: (tenant: string) => `Email ini dikirim otomatis oleh ${PRODUCT} untuk ${tenant}. Mohon jangan membalas email ini.`,
    validity: (minutes: string, what: string) => `${what} ini berlaku selama ${minutes} menit dan hanya dapat digunakan satu kali.`,
    ignore: (what: string) => `Jika Anda tidak meminta ${what} ini, abaikan email ini; akun Anda tetap aman.`,
  },
  en: {
    hello: (name?: string) => (name ? `Hello ${name},` : 'Hello,'),
    footer: (tenant: string) => `This e-mail was sent automatically by ${PRODUCT} for ${tenant}. Please do not reply to it.`,
    validity: (minutes: string, what: string) => `This ${what} is valid for ${minutes} minutes and can be used only once.`,
    ignore: (what: string) => `If you did not ask for this ${what}, you can ignore this e-mail; your account is safe.`,
  },
} as const;

/** What every template reads: the parameters, the locale's strings and the defaults filled in. */
interface View {
  p: Params;
  s: (typeof STRINGS)[Locale];
  id: boolean;
  locale: Locale;
  tenant: string;
  minutes: string;
  ctx: RenderContext;
}

function signInOtp({ p, s, id, tenant, minutes }: View): Content {
  return {
    subject: id ? `Kode masuk ${tenant} Anda` : `Your ${tenant} sign-in code`,
    blocks: [
      { kind: 'p', text: s.hello(p.user_name) },
      { kind: 'p', text: id ? `Gunakan kode berikut untuk masuk ke ${tenant}:` : `Use this code to sign in to ${tenant}:` },
      { kind: 'code', text: p.otp! },
      { kind: 'p', text: s.validity(minutes, id ? 'Kode' : 'code') },
      {
        kind: 'p',
        text: id
          ? `Jangan berikan kode ini kepada siapa pun, termasuk orang yang mengaku sebagai petugas ${tenant}.`
          : `Never share this code with anyone, including people who say they work for ${tenant}.`,
      },
      { kind: 'note', text: s.ignore(id ? 'kode' : 'code') },
    ],
  };
}

function magicLink({ p, s, id, tenant, minutes }: View): Content {
  return {
    subject: id ? `Tautan masuk ${tenant} Anda` : `Your ${tenant} sign-in link`,
    blocks: [
      { kind: 'p', text: s.hello(p.user_name) },
      {
        kind: 'p',
        text: id ? `Klik tombol di bawah ini untuk masuk ke ${tenant}.` : `Use the button below to sign in to ${tenant}.`,
      },
      { kind: 'button', label: id ? `Masuk ke ${tenant}` : `Sign in to ${tenant}`, url: p.url! },
      { kind: 'p', text: s.validity(minutes, id ? 'Tautan' : 'link') },
      { kind: 'note', text: s.ignore(id ? 'tautan' : 'link') },
    ],
  };
}

/** "X invited you to join T as R", or without an inviter "You are invited to join T as R". */
function invitedBy({ p, id, tenant }: View): string {
  const role = p.role ? (id ? ` sebagai ${p.role}` : ` as ${p.role}`) : '';
  if (p.inviter_name) {
    return id
      ? `${p.inviter_name} mengundang Anda untuk bergabung dengan ${tenant} di ${PRODUCT}${role}.`
      : `${p.inviter_name} invited you to join ${tenant} on ${PRODUCT}${role}.`;
  }
  return id
    ? `Anda diundang untuk bergabung dengan ${tenant} di ${PRODUCT}${role}.`
    : `You are invited to join ${tenant} on ${PRODUCT}${role}.`;
}

function invitation(view: View): Content {
  const { p, s, id, tenant } = view;
  return {
    subject: id ? `Undangan bergabung dengan ${tenant}` : `Invitation to join ${tenant}`,
    blocks: [
      { kind: 'p', text: s.hello(p.user_name) },
      { kind: 'p', text: invitedBy(view) },
      { kind: 'button', label: id ? 'Terima undangan' : 'Accept the invitation', url: p.url! },
      {
        kind: 'p',
        text: id
          ? 'Anda akan masuk tanpa kata sandi: dengan passkey, tautan masuk, atau kode yang dikirim ke email ini.'
          : 'You will sign in without a password: with a passkey, a sign-in link, or a code sent to this address.',
      },
      {
        kind: 'note',
        text: id
          ? 'Jika Anda tidak mengenal undangan ini, abaikan email ini.'
          : 'If you do not recognise this invitation, you can ignore this e-mail.',
      },
    ],
  };
}

/** A security notice in words: its subject, what happened and what to do. */
type NoticeText = [subject: string, what: string, todo: string];

function passkeyAddedText({ p, id, tenant }: View, when: string): NoticeText {
  const passkey = p.passkey_name ? ` (${p.passkey_name})` : '';
  return id
    ? [
        `Passkey baru ditambahkan ke akun ${tenant} Anda`,
        `Passkey baru${passkey} telah ditambahkan ke akun ${tenant} Anda pada ${when}.`,
        `Jika ini Anda, tidak ada yang perlu dilakukan. Jika bukan, segera hapus passkey tersebut, keluarkan semua sesi lain, dan hubungi administrator ${tenant}.`,
      ]
    : [
        `A new passkey was added to your ${tenant} account`,
        `A new passkey${passkey} was added to your ${tenant} account on ${when}.`,
        `If this was you, there is nothing to do. If it was not, remove that passkey, sign out all other sessions and contact the ${tenant} administrator right away.`,
      ];
}

function sessionsRevokedText({ id, tenant }: View, when: string): NoticeText {
  return id
    ? [
        `Sesi lain di akun ${tenant} Anda telah dikeluarkan`,
        `Semua sesi lain di akun ${tenant} Anda telah dikeluarkan pada ${when}. Hanya perangkat yang melakukan tindakan ini yang tetap masuk.`,
        `Jika ini Anda, tidak ada yang perlu dilakukan. Jika bukan, segera hubungi administrator ${tenant}.`,
      ]
    : [
        `Your other ${tenant} sessions were signed out`,
        `All other sessions of your ${tenant} account were signed out on ${when}. Only the device that did this is still signed in.`,
        `If this was you, there is nothing to do. If it was not, contact the ${tenant} administrator right away.`,
      ];
}

function securityNotice(view: View): Content {
  const { p, s, id, locale, ctx } = view;
  const when = formatTime(locale, p, ctx.createdAt);
  const [subject, what, todo] = p.event === 'passkey_added' ? passkeyAddedText(view, when) : sessionsRevokedText(view, when);
  const blocks: Block[] = [
    { kind: 'p', text: s.hello(p.user_name) },
    { kind: 'p', text: what },
    { kind: 'p', text: todo },
  ];
  if (p.url) blocks.push({ kind: 'button', label: id ? 'Periksa keamanan akun' : 'Review account security', url: p.url });
  return { subject, blocks };
}

const CONTENT = new Map<TemplateName, (view: View) => Content>([
  ['sign_in_otp', signInOtp],
  ['magic_link', magicLink],
  ['invitation', invitation],
  ['security_notice', securityNotice],
]);

function content(template: TemplateName, locale: Locale, p: Params, ctx: RenderContext): Content {
  const tenant = p.tenant_name || PRODUCT;
  const minutes = p.expires_minutes || String(DEFAULT_EXPIRES_MINUTES);
  return CONTENT.get(template)!({ p, s: STRINGS[locale], id: locale === 'id', locale, tenant, minutes, ctx });
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function toText(c: Content, footer: string): string {
  const parts = c.blocks.map((b) => {
    switch (b.kind) {
      case 'p':
      case 'note':
        return b.text;
      case 'code':
        return `    ${b.text}`;
      case 'button':
        return `${b.label}:\n${b.url}`;
    }
  });
  return `${parts.join('\n\n')}\n\n-- \n${footer}\n`;
}

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

function toHtml(c: Content, locale: Locale, footer: string): string {
  const body = c.blocks
    .map((b) => {
      switch (b.kind) {
        case 'p':
          return `<p style="margin:0 0 16px;font-size:15px;line-height:1.5">${escapeHtml(b.text)}</p>`;
        case 'note':
          return `<p style="margin:0 0 16px;font-size:13px;line-height:1.5;color:#555">${escapeHtml(b.text)}</p>`;
        case 'code':
          return `<p style="margin:0 0 16px;font-size:28px;font-weight:bold;letter-spacing:6px;font-family:monospace">${escapeHtml(b.text)}</p>`;
        case 'button':
          return (
            `<p style="margin:0 0 16px"><a href="${escapeHtml(b.url)}" style="display:inline-block;padding:10px 18px;` +
            `background:#0b6e4f;color:#fff;text-decoration:none;border-radius:4px;font-size:15px">${escapeHtml(b.label)}</a></p>` +
            `<p style="margin:0 0 16px;font-size:12px;color:#555;word-break:break-all">${escapeHtml(b.url)}</p>`
          );
      }
    })
    .join('\n');
  return [
    '<!doctype html>',
    `<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">`,
    `<title>${escapeHtml(c.subject)}</title></head>`,
    `<body style="margin:0;padding:24px;background:#f4f6f8;${FONT};color:#1a1a1a">`,
    '<div style="max-width:560px;margin:0 auto;background:#fff;padding:24px;border-radius:6px">',
    body,
    `<hr style="border:none;border-top:1px solid #ddd;margin:24px 0 12px"><p style="margin:0;font-size:12px;color:#777">${escapeHtml(footer)}</p>`,
    '</div></body></html>',
    '',
  ].join('\n');
}

export function render(template: TemplateName, locale: Locale, params: Params, ctx: RenderContext): Rendered {
  const c = content(template, locale, params, ctx);
  const footer = STRINGS[locale].footer(params.tenant_name || PRODUCT);
  return { subject: c.subject, text: toText(c, footer), html: toHtml(c, locale, footer) };
}
