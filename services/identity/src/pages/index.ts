// The pages identity serves under /auth (sign-in, account, OAuth consent, device verification), and
// where they live: the OAuth provider, sign-in links and invitations point at them.
export { createPages } from './pages.ts';
export type { Pages } from './pages.ts';
export { DASHBOARD, PAGES } from './paths.ts';
export { LANGUAGE_COOKIE, pageLocale } from './i18n.ts';
