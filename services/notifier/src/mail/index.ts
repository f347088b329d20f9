// Mail itself: addresses, the templates (subject, text and HTML in Bahasa Indonesia and English) and
// the SMTP sender. Knows nothing of the message store.
export { isAddress, maskAddress, parseAddress, scrubAddresses } from './address.ts';
export { TLS_MODES, createMailer } from './mailer.ts';
export type { OutgoingMail, Send, SendResult, SmtpSettings, TlsMode } from './mailer.ts';
export { DEFAULT_EXPIRES_MINUTES, PARAMETERS, SECURITY_EVENTS, render } from './templates.ts';
export type { Locale, ParamSpec, TemplateName } from './templates.ts';
