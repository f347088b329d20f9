/** Where the pages live (served by identity, proxied unchanged by the gateway). */
export const PAGES = { signIn: '/auth/sign-in', account: '/auth/account', consent: '/auth/consent', device: '/auth/device' };

/** The staff dashboard's pages (served by the gateway at the site root): where people land after signing in by link. */
export const DASHBOARD = { home: '/', signIn: '/masuk' };
