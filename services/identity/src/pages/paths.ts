/** Where the pages live (served by identity, proxied unchanged by the gateway). */
export const PAGES = { signIn: '/auth/sign-in', account: '/auth/account', consent: '/auth/consent', device: '/auth/device' };
