// Outbound mail, always through the notifier (sign-in codes and links, invitations, security notices).
export { createMailer } from './mailer.ts';
export type { Mailer } from './mailer.ts';
