// The browser session cookie, as Better Auth (in identity) sets it and the gateway reads it. Better Auth
// names it `<prefix>.session_token` and adds the `__Secure-` prefix when the site is served over https.
export const COOKIE_PREFIX = 'simrs';

export function sessionCookieName(publicUrl: string): string {
  return `${publicUrl.startsWith('https:') ? '__Secure-' : ''}${COOKIE_PREFIX}.session_token`;
}
