// Outbound mail, always through the notifier (sign-in codes and links, invitations, security notices),
// by way of a transactional outbox in identity's database (outbox.ts) so that no accepted mail is lost.
export { createMailer } from './mailer.ts';
export type { Locale, Mailer } from './mailer.ts';
export { createOutbox, MailNotAccepted } from './outbox.ts';
export type { Outbox } from './outbox.ts';
